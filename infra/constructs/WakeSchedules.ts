// Where the reconcile function puts the one-off wake-ups SQS's 15-minute delay cannot hold
// (shared/adapters/scheduler/wakeSchedules.ts): a schedule group of their own, and the role
// Scheduler assumes to deliver them to the trigger queue. The function may create, update and
// delete schedules in this group only, and pass this role to Scheduler only.
import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/app/config.ts';

export interface WakeSchedulesProps {
  /** The standard trigger queue: what a fired wake-up sends its reconcile message to. */
  readonly triggerQueue: IQueue;
}

export class WakeSchedules extends Construct {
  readonly group: ScheduleGroup;
  /** Assumed by Scheduler to send to the trigger queue. */
  readonly deliveryRole: Role;
  private readonly triggerQueue: IQueue;

  constructor(scope: Construct, id: string, props: WakeSchedulesProps) {
    super(scope, id);
    this.triggerQueue = props.triggerQueue;
    this.group = new ScheduleGroup(this, 'Group', {});
    const account = Stack.of(this).account;
    this.deliveryRole = new Role(this, 'DeliveryRole', {
      description: 'serverless-rollouts: EventBridge Scheduler delivers wake-ups to the trigger queue',
      // Confused-deputy guard: only Scheduler acting for this account, for schedules of this group.
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': account }, ArnLike: { 'aws:SourceArn': this.scheduleArns() } },
      }),
    });
    this.deliveryRole.addToPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.triggerQueue.queueArn] }));
  }

  /** The environment the functions read (shared/app/config.ts: all three or none). */
  get environment(): Record<string, string> {
    return {
      [ENV.wakeScheduleGroup]: this.group.scheduleGroupName,
      [ENV.wakeScheduleRoleArn]: this.deliveryRole.roleArn,
      [ENV.triggerQueueArn]: this.triggerQueue.queueArn,
    };
  }

  /** Lets `role` create, update and delete schedules of this group, and hand the delivery role to Scheduler. */
  grantManage(role: IRole): void {
    role.addToPrincipalPolicy(new PolicyStatement({
      actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      resources: [this.scheduleArns()],
    }));
    role.addToPrincipalPolicy(new PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [this.deliveryRole.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    }));
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${this.scheduleArnsForNag()}]`,
      reason: 'One schedule per wake-up, named by a hash of the rollout and the instant (wakeSchedules.ts), so the names are not known '
        + 'in advance: the wildcard is the schedules of this one group, which holds nothing else.',
    });
  }

  /** arn:<partition>:scheduler:<region>:<account>:schedule/<group>/* */
  private scheduleArns(): string {
    return Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.group.scheduleGroupName}/*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  }

  /** How cdk-nag spells that ARN in its finding ids: resolved, with references as <Ref> and <LogicalId.Attribute>. */
  private scheduleArnsForNag(): string {
    const render = (v: unknown): string => {
      if (typeof v === 'string') return v;
      const o = v as Record<string, unknown>;
      if ('Fn::Join' in o) {
        const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
        return parts.map(render).join(sep);
      }
      if ('Ref' in o) return `<${String(o.Ref)}>`;
      if ('Fn::GetAtt' in o) return `<${(o['Fn::GetAtt'] as string[]).join('.')}>`;
      return JSON.stringify(v);
    };
    return render(Stack.of(this).resolve(this.scheduleArns()));
  }
}
