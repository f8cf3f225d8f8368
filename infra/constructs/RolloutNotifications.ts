// Optional (deploy parameter `notifications`): an EventBridge rule on the product's bus that sends
// the events a person must see at once, approvals needed and failures (NOTIFY_EVENTS in
// shared/rollout/events.ts), to an SNS topic: subscribe e-mail, AWS Chatbot (Slack, Teams) or an
// incident tool to it. Each message is the EventBridge event itself, whose `detail` follows
// schemas/rollout-event.schema.json (`detail.reason` is the one-line reason).
import { Duration } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NOTIFY_EVENTS } from '../../shared/rollout/events.ts';

export interface RolloutNotificationsProps {
  readonly bus: IEventBus;
  /** Source of our transition events. */
  readonly eventSource: string;
  /** Where events the rule could not deliver end up. */
  readonly deadLetterQueue: IQueue;
  /** @default - no subscription (subscribe to the topic yourself) */
  readonly email?: string;
}

/** The rule's event pattern (also what the wiring test routes with). */
export function notificationPattern(eventSource: string): { source: string[]; 'detail-type': string[] } {
  return { source: [eventSource], 'detail-type': [...NOTIFY_EVENTS] };
}

export class RolloutNotifications extends Construct {
  readonly topic: Topic;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: RolloutNotificationsProps) {
    super(scope, id);
    // No KMS key, like the alarms topic: EventBridge can publish to an encrypted topic only through a
    // customer managed key whose policy admits it, and the events carry rollout names and reasons,
    // which the bus and the state table hold unencrypted by a customer key too.
    this.topic = new Topic(this, 'Topic', { displayName: 'serverless-rollouts: approvals needed and failures', enforceSSL: true });
    if (props.email !== undefined) this.topic.addSubscription(new EmailSubscription(props.email));
    this.rule = new Rule(this, 'ToTopic', {
      eventBus: props.bus,
      description: 'serverless-rollouts: approvals needed and failures to the notification topic',
      eventPattern: notificationPattern(props.eventSource),
      // SnsTopic adds the topic policy that lets events.amazonaws.com publish, for this rule only.
      targets: [new SnsTopic(this.topic, { deadLetterQueue: props.deadLetterQueue, maxEventAge: Duration.hours(6), retryAttempts: 20 })],
    });
  }
}
