// What an operator gets from the stack: the CloudWatch dashboard built from the functions' EMF
// metrics, and, with the `notifications` parameter, approvals needed and failures routed from the
// bus to an SNS topic (least privilege: the topic policy admits EventBridge for this rule only).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { NOTIFY_EVENTS } from '../../shared/rollout/events.ts';
import { EVENT_SOURCE } from '../../infra/stack.ts';
import { FULL_CONTEXT, logicalId, resources, synth } from '../../infra/synth.ts';

describe('the CloudWatch dashboard', () => {
  const { template } = synth();

  it('is in every deployment, with the reconcile, request, error and transition widgets', () => {
    const [dashboard] = Object.values(resources(template, 'AWS::CloudWatch::Dashboard'));
    assert.ok(dashboard, 'a dashboard');
    const body = JSON.stringify(dashboard.Properties?.DashboardBody);
    for (const title of ['Reconcile passes and outcomes', 'Reconcile pass duration (ms)', 'Kubernetes requests per reconcile', 'DynamoDB requests per reconcile', 'Errors', 'Release transitions']) {
      assert.ok(body.includes(title), `widget ${title}`);
    }
    for (const metric of ['ReconcileDuration', 'KubeReads', 'DynamoWrites', 'ReconcileFailures', 'TransitionReleaseFailed', 'TransitionAwaitingApproval']) assert.ok(body.includes(metric), `metric ${metric}`);
    assert.ok(body.includes('rollouts-reconcile'), 'metrics by the reconcile function\'s service dimension');
  });
});

describe('notifications (deploy parameter)', () => {
  it('are off by default: no rule to a topic', () => {
    const { template } = synth();
    assert.equal(Object.values(resources(template, 'AWS::Events::Rule')).filter((r) => JSON.stringify(r.Properties?.Targets).includes('Topic')).length, 0);
    assert.equal(Object.keys(template.toJSON().Outputs ?? {}).some((k) => k.startsWith('NotificationTopicArn')), false);
  });

  it('route approvals needed and failures from the bus to an SNS topic, with an e-mail subscription', () => {
    const { template } = synth({ notificationEmail: 'oncall@example.com' });
    const topic = logicalId(template, 'AWS::SNS::Topic', 'NotificationsTopic');
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: [EVENT_SOURCE], 'detail-type': [...NOTIFY_EVENTS] },
      Targets: [Match.objectLike({ Arn: { Ref: topic }, DeadLetterConfig: Match.anyValue(), RetryPolicy: Match.anyValue() })],
    });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: { Ref: topic } });
    template.hasOutput('NotificationTopicArn', { Value: { Ref: topic } });
    assert.deepEqual([...NOTIFY_EVENTS], ['Awaiting Approval', 'Release Failed', 'Release Rolled Back', 'Rollout Degraded', 'Cluster Unreachable']);
  });

  it('let only EventBridge publish to the topic, over TLS', () => {
    const { template } = synth({ notifications: true });
    const topic = logicalId(template, 'AWS::SNS::Topic', 'NotificationsTopic');
    const policies = Object.values(resources(template, 'AWS::SNS::TopicPolicy')).filter((p) => JSON.stringify(p.Properties?.Topics).includes(topic));
    const statements = policies.flatMap((p) => (p.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement);
    const allows = statements.filter((s) => s.Effect === 'Allow');
    assert.deepEqual(allows.map((s) => [s.Principal, s.Action]), [[{ Service: 'events.amazonaws.com' }, 'sns:Publish']]);
    assert.ok(statements.some((s) => s.Effect === 'Deny' && JSON.stringify(s.Condition).includes('aws:SecureTransport')), 'TLS enforced');
  });

  it('leave cdk-nag with nothing unacknowledged', () => {
    const { app } = synth({ ...FULL_CONTEXT, notificationEmail: 'oncall@example.com' });
    const findings = new AwsSolutionsChecks().validateScope(app).violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));
    assert.deepEqual(findings, []);
  });

  it('refuse a malformed e-mail at synth', () => {
    assert.throws(() => synth({ notificationEmail: 'not-an-address' }), /notificationEmail: /);
  });
});
