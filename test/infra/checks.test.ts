// What hooks and gates add to the stack: the reconcile role may invoke exactly the functions, read
// exactly the alarms and query exactly the AMP workspaces the deploy parameters name (nothing when
// they name none), and with the optional `vpc` the reconcile function runs in the given subnets with
// its own security group and the endpoints of every AWS API it calls; cdk-nag stays clean.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AwsSolutionsChecks } from 'cdk-nag';
import { grantsOf } from './grants.ts';
import { ACCOUNT, FULL_CONTEXT, REGION, logicalId, resources, synth } from '../../infra/synth.ts';

const FN = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:canary-verdict`;
const ALARMS = [`arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:web-5xx`, `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:web-latency-*`];
const WORKSPACE = `arn:aws:aps:${REGION}:${ACCOUNT}:workspace/ws-0123abcd-4567-89ef-0123-456789abcdef`;
const CHECKS = { checks: { lambdaFunctions: [FN], cloudwatchAlarms: ALARMS, prometheusWorkspaces: [WORKSPACE] } };
const VPC = {
  vpc: {
    vpcId: 'vpc-0123456789abcdef0',
    subnets: [
      { subnetId: 'subnet-0aaaaaaaaaaaaaaa1', availabilityZone: `${REGION}a`, routeTableId: 'rtb-0aaaaaaaaaaaaaaa1' },
      { subnetId: 'subnet-0bbbbbbbbbbbbbbb2', availabilityZone: `${REGION}b`, routeTableId: 'rtb-0bbbbbbbbbbbbbbb2' },
    ],
    egress: [{ cidr: '10.0.0.0/8', port: 8080 }],
  },
};

const findings = (context: Record<string, unknown>) => new AwsSolutionsChecks().validateScope(synth(context).app).violations
  .flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));

describe('hooks and gates in the stack', () => {
  it('grants the reconcile role exactly the functions, alarms and workspaces the parameters name', () => {
    const { template } = synth({ ...FULL_CONTEXT, ...CHECKS });
    const grants = grantsOf(template, logicalId(template, 'AWS::IAM::Role', 'ReconcileRole'));
    assert.deepEqual(grants['lambda:InvokeFunction']?.filter((r) => !r.startsWith('<')), [FN, `${FN}:*`]);
    assert.deepEqual(grants['cloudwatch:DescribeAlarms'], ALARMS);
    assert.deepEqual(grants['aps:QueryMetrics'], [WORKSPACE]);
    for (const other of ['ApiRole', 'SweepRole', 'WatchProxyRole']) {
      const g = grantsOf(template, logicalId(template, 'AWS::IAM::Role', other));
      assert.equal(g['cloudwatch:DescribeAlarms'] ?? g['aps:QueryMetrics'], undefined, `${other} calls no gate`);
    }
  });

  it('grants nothing for hooks and gates when the parameters name nothing', () => {
    const { template } = synth(FULL_CONTEXT);
    const grants = grantsOf(template, logicalId(template, 'AWS::IAM::Role', 'ReconcileRole'));
    assert.equal(grants['cloudwatch:DescribeAlarms'], undefined);
    assert.equal(grants['aps:QueryMetrics'], undefined);
    assert.deepEqual(grants['lambda:InvokeFunction'], ['<WatchProxyFunction>'], 'only the watch-proxy');
  });

  it('puts the reconcile function in the given subnets with its own security group and the endpoints it needs', () => {
    const { template } = synth({ ...FULL_CONTEXT, ...VPC });
    const fn = resources(template, 'AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', 'ReconcileFunction')];
    const vpcConfig = (fn?.Properties as { VpcConfig?: { SubnetIds: string[]; SecurityGroupIds: unknown[] } }).VpcConfig;
    assert.deepEqual(vpcConfig?.SubnetIds, ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2']);
    for (const other of ['ApiFunction', 'SweepFunction']) {
      const f = resources(template, 'AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', other)];
      assert.equal((f?.Properties as { VpcConfig?: unknown }).VpcConfig, undefined, `${other} stays outside the VPC`);
    }
    const groups = Object.values(resources(template, 'AWS::EC2::SecurityGroup')).map((g) => g.Properties as { GroupDescription: string; SecurityGroupEgress?: { IpProtocol: string; FromPort?: number; CidrIp?: string }[]; SecurityGroupIngress?: unknown[] });
    const reconcileGroup = groups.find((g) => g.GroupDescription.startsWith('serverless-rollouts reconcile'));
    assert.deepEqual(reconcileGroup?.SecurityGroupEgress?.map((e) => `${e.CidrIp}:${e.FromPort}`).sort(), ['0.0.0.0/0:443', '10.0.0.0/8:8080']);
    assert.equal(reconcileGroup?.SecurityGroupIngress, undefined, 'no inbound');
    const endpoints = Object.values(resources(template, 'AWS::EC2::VPCEndpoint')).map((e) => JSON.stringify((e.Properties as { ServiceName: unknown }).ServiceName));
    assert.equal(endpoints.length, 11);
    for (const service of ['dynamodb', 'sqs', 'events', 'scheduler', 'eks', 'sts', 'secretsmanager', 'lambda', 'monitoring', 'aps-workspaces', 'xray']) {
      assert.ok(endpoints.some((e) => e.includes(`.${service}`)), `an endpoint for ${service}: ${endpoints.join(' ')}`);
    }
    const ec2 = grantsOf(template, logicalId(template, 'AWS::IAM::Role', 'ReconcileRole'))['ec2:CreateNetworkInterface'];
    assert.ok(ec2?.some((r) => r.endsWith('subnet/subnet-0aaaaaaaaaaaaaaa1')), `ENIs only in the given subnets: ${String(ec2)}`);
  });

  it('is cdk-nag clean with a VPC and checks', () => {
    assert.deepEqual(findings({ ...FULL_CONTEXT, ...VPC, ...CHECKS }), []);
  });

  it('refuses a VPC whose subnets lack the route tables the DynamoDB endpoint needs, naming the field', () => {
    assert.throws(() => synth({ vpc: { vpcId: 'vpc-0123456789abcdef0', subnets: [{ subnetId: 'subnet-0aaaaaaaaaaaaaaa1', availabilityZone: `${REGION}a` }] } }),
      /vpc\.subnets\.0\.routeTableId: required with endpoints/);
    assert.throws(() => synth({ checks: { cloudwatchAlarms: ['web-5xx'] } }), /checks\.cloudwatchAlarms\.0: a CloudWatch alarm ARN/);
  });
});
