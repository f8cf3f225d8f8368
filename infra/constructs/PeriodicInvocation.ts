// An EventBridge Scheduler schedule that invokes one function on a fixed rate, passing the
// scheduled time (the idempotency key of a tick), with a bounded retry policy and a dead-letter queue.
import type { Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ContextAttribute, Schedule, ScheduleExpression, ScheduleTargetInput, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import type { IScheduleTarget } from 'aws-cdk-lib/aws-scheduler';
import { ScheduleTargetBase } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ScheduleTargetBaseProps } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/**
 * Like aws-scheduler-targets' LambdaInvoke, but the Scheduler role may invoke the unqualified
 * function only: LambdaInvoke uses grantInvoke, which also allows `<function-arn>:*` (every version
 * and alias), a wildcard we do not need.
 */
class InvokeFunction extends ScheduleTargetBase implements IScheduleTarget {
  private readonly fn: IFunction;
  constructor(fn: IFunction, props: ScheduleTargetBaseProps) {
    super(props, fn.functionArn);
    this.fn = fn;
  }
  protected addTargetActionToRole(role: IRole): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.fn.functionArn] }));
  }
}

export interface PeriodicInvocationProps {
  readonly fn: IFunction;
  readonly rate: Duration;
  readonly description: string;
  /** Where invocations Scheduler could not deliver end up. */
  readonly deadLetterQueue: IQueue;
  /**
   * Delivery retries. A tick is superseded by the next one, so a few retries are enough.
   * @default 2
   */
  readonly retryAttempts?: number;
  /** Drop a tick Scheduler could not deliver within this age (60 s minimum). */
  readonly maxEventAge: Duration;
}

export class PeriodicInvocation extends Construct {
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: PeriodicInvocationProps) {
    super(scope, id);
    this.schedule = new Schedule(this, 'Schedule', {
      schedule: ScheduleExpression.rate(props.rate),
      description: props.description,
      // Ticks should be evenly spaced; a flexible window would bunch them up.
      timeWindow: TimeWindow.off(),
      target: new InvokeFunction(props.fn, {
        // Scheduler passes this Input as the whole event (no envelope): the handler types it itself.
        input: ScheduleTargetInput.fromObject({ scheduledTime: ContextAttribute.scheduledTime }),
        retryAttempts: props.retryAttempts ?? 2,
        maxEventAge: props.maxEventAge,
        deadLetterQueue: props.deadLetterQueue,
      }),
    });
  }
}
