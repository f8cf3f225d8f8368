// The alarms an operator needs: anything in a dead-letter queue (a reconcile, a tick or a watch
// event that was given up on) and any function error. With an e-mail address they notify an SNS topic.
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface OperationsAlarmsProps {
  readonly deadLetterQueues: Readonly<Record<string, IQueue>>;
  readonly functions: Readonly<Record<string, IFunction>>;
  /** @default - alarms without notifications */
  readonly alarmEmail?: string;
}

export class OperationsAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  readonly topic?: Topic;

  constructor(scope: Construct, id: string, props: OperationsAlarmsProps) {
    super(scope, id);
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.alarms.push(new Alarm(this, `${name}NotEmpty`, {
        alarmDescription: `serverless-rollouts: messages in the ${name} dead-letter queue; inspect them, fix the cause, then redrive or purge`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }));
    }
    for (const [name, fn] of Object.entries(props.functions)) {
      this.alarms.push(new Alarm(this, `${name}Errors`, {
        alarmDescription: `serverless-rollouts: the ${name} function failed (error, crash or timeout); see its log group`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }));
    }
    if (props.alarmEmail === undefined) return;

    // No KMS key: notifications carry only alarm names, states and metric values, and CloudWatch
    // cannot publish to a topic encrypted with the AWS-managed SNS key.
    this.topic = new Topic(this, 'Topic', { displayName: 'serverless-rollouts alarms', enforceSSL: true });
    this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
  }
}
