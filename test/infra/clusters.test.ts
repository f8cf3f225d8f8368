// Deploy parameters (CDK context) and what they turn into: EKS access entries, alarms, optional parts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { KUBERNETES_GROUP, KUBERNETES_VIEW_GROUP } from '../../infra/constructs/ClusterAccess.ts';
import { DeployParameterError } from '../../infra/parameters.ts';
import { statementsOf } from './grants.ts';
import { FULL_CONTEXT, logicalId, resources, synth } from '../../infra/synth.ts';
import { watchTargets } from '../../shared/watch/mapping.ts';
import { ROUTING_WATCHES } from '../../shared/traffic/registry.ts';
import { trafficGrants } from '../../shared/traffic/rbac.ts';
import { requiredRbac } from '../../shared/workloads/rbac.ts';
import { WORKLOAD_DRIVERS } from '../../shared/workloads/registry.ts';
import { clusterRole, grantsOfAccess, grantsOfRules, rbacDocuments, type RbacRule } from '../support/rbacManifest.ts';

describe('EKS access entries', () => {
  const { template } = synth(FULL_CONTEXT);
  const roleArn = (prefix: string) => ({ 'Fn::GetAtt': [logicalId(template, 'AWS::IAM::Role', prefix), 'Arn'] });

  it('maps the reconcile and watch-proxy roles to the write group of each listed cluster in the stack region', () => {
    for (const eksClusterName of ['prod-eks', 'staging-eks']) {
      for (const role of ['ReconcileRole', 'WatchProxyRole']) {
        template.hasResourceProperties('AWS::EKS::AccessEntry', {
          ClusterName: eksClusterName,
          PrincipalArn: roleArn(role),
          Type: 'STANDARD',
          KubernetesGroups: [KUBERNETES_GROUP],
        });
      }
    }
    template.resourceCountIs('AWS::EKS::AccessEntry', 6);
  });

  it('maps the API role to the read-only group only, one entry per listed cluster in the stack region', () => {
    const apiArn = JSON.stringify(roleArn('ApiRole'));
    const apiEntries = Object.values(resources(template, 'AWS::EKS::AccessEntry')).filter((e) => JSON.stringify(e.Properties?.PrincipalArn) === apiArn);
    assert.deepEqual(apiEntries.map((e) => [e.Properties?.ClusterName, e.Properties?.KubernetesGroups, e.Properties?.Type]).sort(), [
      ['prod-eks', [KUBERNETES_VIEW_GROUP], 'STANDARD'],
      ['staging-eks', [KUBERNETES_VIEW_GROUP], 'STANDARD'],
    ]);
    assert.ok(apiEntries.every((e) => e.Properties?.AccessPolicies === undefined), 'no EKS access policy on top of the group');
  });

  it('gives the sweep no access entry: it never talks to Kubernetes', () => {
    const entries = Object.values(resources(template, 'AWS::EKS::AccessEntry'));
    const arn = JSON.stringify(roleArn('SweepRole'));
    assert.ok(entries.every((e) => JSON.stringify(e.Properties?.PrincipalArn) !== arn));
  });

  it('creates no access entry for a cluster reached through a role, nor for one in another region', () => {
    for (const name of ['partner-eks', 'tokyo-eks']) {
      assert.deepEqual(template.findResources('AWS::EKS::AccessEntry', { Properties: { ClusterName: name } }), {});
    }
  });

  it('uses the groups that infra/k8s/rollouts-rbac.yaml binds to its ClusterRoles of the same names', () => {
    const bindings = rbacDocuments().filter((d) => d.kind === 'ClusterRoleBinding');
    assert.deepEqual(bindings.map((b) => [b.roleRef.name, b.subjects]), [KUBERNETES_GROUP, KUBERNETES_VIEW_GROUP].map((group) =>
      [group, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }]]));
  });

  it('gives the read-only group exactly what the workload route reads (the drivers\' observe, a routed Rollout\'s router and Services), get and list only', () => {
    const granted = grantsOfRules(clusterRole(KUBERNETES_VIEW_GROUP).rules);
    assert.deepEqual(granted, grantsOfAccess(requiredRbac(Object.values(WORKLOAD_DRIVERS), trafficGrants()).view));
    assert.ok(granted.every((g) => / (get|list)$/.test(g)), granted.join(', '));
  });

  it('lets the product\'s group list and watch every resource a workload driver or a traffic routing declares it watches', () => {
    const role = clusterRole(KUBERNETES_GROUP);
    for (const target of watchTargets(WORKLOAD_DRIVERS, ROUTING_WATCHES)) {
      const group = target.apiVersion.includes('/') ? target.apiVersion.split('/')[0] : '';
      const verbs = new Set(role.rules.filter((r: RbacRule) => r.apiGroups.includes(group as string) && r.resources.includes(target.resource)).flatMap((r: RbacRule) => r.verbs));
      assert.ok(verbs.has('list') && verbs.has('watch'), `${target.id}: list and watch needed, granted ${[...verbs].join(',') || 'nothing'}`);
    }
  });

  it('tells the operator how to bind both roles per namespace when a cluster lists namespaces', () => {
    const { stack } = synth(FULL_CONTEXT);
    const annotations = Annotations.fromStack(stack);
    for (const group of [KUBERNETES_GROUP, KUBERNETES_VIEW_GROUP]) {
      annotations.hasInfo('/Rollouts/ClusterAccess', Match.stringLikeRegexp(
        `cluster staging: limited to namespaces web, api.*kubectl delete clusterrolebinding ${group}\`.*kubectl create rolebinding ${group} -n web --clusterrole=${group} --group=${group}\``,
      ));
    }
  });

  it('warns that the API reads a cluster reached through a role with that role\'s rights', () => {
    const { stack } = synth(FULL_CONTEXT);
    Annotations.fromStack(stack).hasInfo('/Rollouts/ClusterAccess', Match.stringLikeRegexp(
      'cluster partner: reached through arn:aws:iam::210987654321:role/rollouts-access; .*the read-only principals \\(api\\) assume it too',
    ));
  });

  it('creates none when no cluster is listed, and grants no EKS or STS action', () => {
    const { template: bare } = synth();
    bare.resourceCountIs('AWS::EKS::AccessEntry', 0);
    const text = JSON.stringify(bare.findResources('AWS::IAM::Policy'));
    assert.doesNotMatch(text, /eks:|sts:/);
  });
});

describe('clusters registered by endpoint (token in Secrets Manager)', () => {
  const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rollouts/lab-token-AbCdEf';
  const PARTNER_SECRET = 'arn:aws:secretsmanager:eu-west-1:210987654321:secret:rollouts/edge-token-XyZ123';
  const PARTNER_ROLE = 'arn:aws:iam::210987654321:role/rollouts-edge';
  const { template } = synth({ clusters: [{ name: 'lab', tokenSecretArn: SECRET }, { name: 'edge', tokenSecretArn: PARTNER_SECRET, roleArn: PARTNER_ROLE }] });
  const grants = (prefix: string) => statementsOf(template)
    .filter((s) => s.roles.some((r) => r.startsWith(prefix)))
    .map((s) => s.statement)
    .filter((st) => [st.Action].flat().some((a) => a.startsWith('secretsmanager:') || a.startsWith('sts:') || a.startsWith('eks:')));

  it('lets each function that talks to Kubernetes read exactly the listed secret, and assume the role of the cluster read through one', () => {
    for (const role of ['ReconcileRole', 'WatchProxyRole', 'ApiRole']) {
      assert.deepEqual(grants(role).map((st) => [st.Action, st.Resource]), [
        ['secretsmanager:GetSecretValue', SECRET],
        ['sts:AssumeRole', PARTNER_ROLE],
      ], role);
    }
    assert.deepEqual(grants('SweepRole'), [], 'the sweep never talks to Kubernetes');
  });

  it('creates no EKS access entry for them', () => {
    template.resourceCountIs('AWS::EKS::AccessEntry', 0);
  });

  it('refuses entries that are not exactly one kind, a region on a secret, or a secret ARN without its suffix', () => {
    assert.throws(() => synth({ clusters: [{ name: 'a' }] }), (err: Error) => err instanceof DeployParameterError && /clusters\.0\.eksClusterName: exactly one of/.test(err.message));
    assert.throws(() => synth({ clusters: [{ name: 'a', eksClusterName: 'x', tokenSecretArn: SECRET }] }), /clusters\.0\.eksClusterName: exactly one of/);
    assert.throws(() => synth({ clusters: [{ name: 'a', tokenSecretArn: SECRET, region: 'eu-west-1' }] }), /clusters\.0\.region: is for EKS clusters/);
    assert.throws(() => synth({ clusters: [{ name: 'a', tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rollouts/lab-token' }] }), /clusters\.0\.tokenSecretArn: the full ARN/);
  });
});

describe('deploy parameters', () => {
  it('accept clusters given on the command line as a JSON string', () => {
    const { template } = synth({ clusters: JSON.stringify([{ name: 'cli', eksClusterName: 'cli-eks' }]) });
    template.resourceCountIs('AWS::EKS::AccessEntry', 3);
  });

  it('fail synth naming the key and the reason when a value is invalid', () => {
    assert.throws(() => synth({ clusters: [{ name: 'bad#name', eksClusterName: 'x' }] }), (err: Error) =>
      err instanceof DeployParameterError && /clusters\.0\.name/.test(err.message));
    assert.throws(() => synth({ watchProxyMode: 'container' }), /watchProxyMode/);
    assert.throws(() => synth({ clusters: [{ name: 'a', eksClusterName: 'x', role: 'typo' }] }), /clusters\.0/);
    assert.throws(() => synth({ clusters: [{ name: 'a', eksClusterName: 'x' }, { name: 'a', eksClusterName: 'y' }] }), /unique/);
    assert.throws(() => synth({ alarmEmail: 'not-an-address' }), /alarmEmail/);
  });

  it('watchProxyMode none deploys no watch-proxy function, schedule or access entry', () => {
    const { template } = synth({ ...FULL_CONTEXT, watchProxyMode: 'none' });
    template.resourceCountIs('AWS::Lambda::Function', 3);
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    template.resourceCountIs('AWS::EKS::AccessEntry', 4);
    assert.deepEqual(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('watch') } }), {});
    assert.deepEqual(template.findOutputs('WatchProxyRoleArn'), {});
  });

  it('reconcileConcurrency caps both event source mappings', () => {
    const { template } = synth({ reconcileConcurrency: 50 });
    const mappings = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'));
    assert.deepEqual(mappings.map((m) => m.Properties?.ScalingConfig), [{ MaximumConcurrency: 50 }, { MaximumConcurrency: 50 }]);
  });
});

describe('OperationsAlarms', () => {
  it('alarms on every dead-letter queue and every function, silently without alarmEmail', () => {
    const { template } = synth();
    template.resourceCountIs('AWS::CloudWatch::Alarm', 3 + 4);
    for (const prefix of ['QueuesWorkDlq', 'QueuesTriggerDlq', 'DeliveryDlq']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue', prefix), 'QueueName'] } }],
        Threshold: 1,
      });
    }
    template.resourceCountIs('AWS::SNS::Topic', 0);
  });

  it('notifies a TLS-only topic with an e-mail subscription when alarmEmail is set', () => {
    const { template } = synth({ alarmEmail: 'ops@example.com' });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    const topic = logicalId(template, 'AWS::SNS::Topic', 'AlarmsTopic');
    for (const alarm of Object.values(resources(template, 'AWS::CloudWatch::Alarm'))) {
      assert.deepEqual(alarm.Properties?.AlarmActions, [{ Ref: topic }]);
    }
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });
});
