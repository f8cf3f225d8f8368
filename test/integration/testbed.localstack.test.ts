// Real LocalStack on loopback serves what the deployed path and the alarm gate need: an SQS FIFO
// round trip, a CloudFormation stack holding the product's own state table (DynamoDB served by
// moto through our provider override) reaching CREATE_COMPLETE, and CloudWatch alarm states. And
// what it does not do, which the tests of the deployed path must not rely on: evaluate IAM.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CloudFormationClient, CreateStackCommand, DeleteStackCommand, DescribeStackEventsCommand, DescribeStackResourcesCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand, PutMetricAlarmCommand, SetAlarmStateCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateAccessKeyCommand, CreateRoleCommand, CreateUserCommand, IAMClient } from '@aws-sdk/client-iam';
import { CreateSecretCommand, GetSecretValueCommand, PutResourcePolicyCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, DeleteMessageCommand, ListQueuesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { StateTable } from '../../infra/constructs/StateTable.ts';
import { STATE_TABLE } from '../../shared/adapters/dynamodb/table.ts';
import { startLocalStack, type LocalStack } from '../support/aws/localstack.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

describe('LocalStack on the test bed', () => {
  let localstack: LocalStack;
  let client: { endpoint: string; region: string; credentials: LocalStack['credentials'] };

  before(async () => {
    // ENFORCE_IAM=1 turns on IAM enforcement in LocalStack Pro; the last test shows core ignores it.
    localstack = await startLocalStack({ env: { ENFORCE_IAM: '1' } });
    client = { endpoint: localstack.endpoint, region: localstack.region, credentials: localstack.credentials };
  });

  after(async () => {
    await localstack?.stop();
  });

  test('an SQS FIFO queue delivers a message once per deduplication id, in its group', async () => {
    const sqs = new SQSClient(client);
    try {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'work.fifo', Attributes: { FifoQueue: 'true' } }));
      assert.ok(QueueUrl?.startsWith(localstack.endpoint), `queue URL on the gateway: ${QueueUrl}`);
      for (let i = 0; i < 2; i += 1) {
        await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"rollout":"web"}', MessageGroupId: 'cluster-a/web', MessageDeduplicationId: 'release-1' }));
      }
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['MessageGroupId'] }));
      assert.equal(received.Messages?.length, 1);
      const [message] = received.Messages ?? [];
      assert.equal(message?.Body, '{"rollout":"web"}');
      assert.equal(message?.Attributes?.MessageGroupId, 'cluster-a/web');
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message?.ReceiptHandle }));
    } finally {
      sqs.destroy();
    }
  });

  test('a CloudFormation stack with the product state table reaches CREATE_COMPLETE and the table takes conditional writes', async () => {
    const app = new App();
    const stack = new Stack(app, 'StateTableOnly');
    new StateTable(stack, 'State', { deletionProtection: false, removalPolicy: RemovalPolicy.DESTROY });
    const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, { Type: string }>; Parameters?: Record<string, unknown>; Rules?: unknown };
    // The bootstrap-version check reads an SSM parameter only a bootstrapped account has.
    delete template.Parameters?.BootstrapVersion;
    delete template.Rules;
    assert.ok(Object.values(template.Resources).some((resource) => resource.Type === 'AWS::DynamoDB::GlobalTable'));

    const cloudformation = new CloudFormationClient(client);
    const dynamodb = new DynamoDBClient(client);
    try {
      await cloudformation.send(new CreateStackCommand({ StackName: 'state-table', TemplateBody: JSON.stringify(template) }));
      const settled = await waitFor(async () => {
        const [current] = (await cloudformation.send(new DescribeStacksCommand({ StackName: 'state-table' }))).Stacks ?? [];
        return current?.StackStatus?.endsWith('_IN_PROGRESS') === false ? current : undefined;
      }, { message: 'stack state-table to settle', timeoutMs: 60_000, intervalMs: 250 });
      const events = (await cloudformation.send(new DescribeStackEventsCommand({ StackName: 'state-table' }))).StackEvents ?? [];
      assert.equal(settled.StackStatus, 'CREATE_COMPLETE', events.map((e) => `${e.LogicalResourceId} ${e.ResourceStatus} ${e.ResourceStatusReason ?? ''}`).join('\n'));

      const resources = (await cloudformation.send(new DescribeStackResourcesCommand({ StackName: 'state-table' }))).StackResources ?? [];
      const tableName = resources.find((resource) => resource.ResourceType === 'AWS::DynamoDB::GlobalTable')?.PhysicalResourceId;
      assert.ok(tableName, 'the stack holds the table');
      const physical = (await dynamodb.send(new DescribeTableCommand({ TableName: tableName }))).Table;
      assert.equal(physical?.TableStatus, 'ACTIVE');
      assert.equal(physical?.GlobalSecondaryIndexes?.length, 1);

      const { partitionKey, sortKey } = STATE_TABLE;
      const item = { [partitionKey.name]: { S: 'rollout#web' }, [sortKey.name]: { S: 'state' } };
      const put = () => dynamodb.send(new PutItemCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': partitionKey.name } }));
      await put();
      await assert.rejects(put(), { name: 'ConditionalCheckFailedException' });
      await cloudformation.send(new DeleteStackCommand({ StackName: 'state-table' }));
    } finally {
      cloudformation.destroy();
      dynamodb.destroy();
    }
  });

  test('a CloudWatch alarm set to ALARM and back to OK reads back each state', async () => {
    const cloudwatch = new CloudWatchClient(client);
    try {
      await cloudwatch.send(new PutMetricAlarmCommand({
        AlarmName: 'web-errors', Namespace: 'App', MetricName: 'Errors', Statistic: 'Sum', Period: 60, EvaluationPeriods: 1, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }));
      const stateOf = async () => (await cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: ['web-errors'] }))).MetricAlarms?.map((alarm) => alarm.StateValue);
      assert.deepEqual(await stateOf(), ['INSUFFICIENT_DATA']);
      await cloudwatch.send(new SetAlarmStateCommand({ AlarmName: 'web-errors', StateValue: 'ALARM', StateReason: 'test: errors high' }));
      assert.deepEqual(await stateOf(), ['ALARM']);
      await cloudwatch.send(new SetAlarmStateCommand({ AlarmName: 'web-errors', StateValue: 'OK', StateReason: 'test: errors back to normal' }));
      assert.deepEqual(await stateOf(), ['OK']);
    } finally {
      cloudwatch.destroy();
    }
  });
  test('LocalStack evaluates no IAM, even with ENFORCE_IAM=1: no signature, identity policy, trust policy or resource policy is checked; the one boundary it keeps is a default-key secret\'s account', async () => {
    type Creds = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
    const as = (credentials: Creds) => ({ endpoint: localstack.endpoint, region: localstack.region, credentials });
    const iam = new IAMClient(client);
    const sts = new STSClient(client);
    const clients: { destroy(): void }[] = [iam, sts];
    const sqsAs = (c: Creds) => { const x = new SQSClient(as(c)); clients.push(x); return x; };
    const secretsAs = (c: Creds) => { const x = new SecretsManagerClient(as(c)); clients.push(x); return x; };
    const read = (c: Creds, SecretId: string) => secretsAs(c).send(new GetSecretValueCommand({ SecretId })).then((r) => r.SecretString, (err: Error) => err.name);
    try {
      // A user without any policy may do anything; so may a wrong secret key (no signature check).
      await iam.send(new CreateUserCommand({ UserName: 'nobody' }));
      const key = (await iam.send(new CreateAccessKeyCommand({ UserName: 'nobody' }))).AccessKey;
      const nobody = { accessKeyId: key?.AccessKeyId as string, secretAccessKey: key?.SecretAccessKey as string };
      assert.ok((await sqsAs(nobody).send(new CreateQueueCommand({ QueueName: 'made-by-nobody' }))).QueueUrl);
      assert.ok(((await sqsAs({ ...nobody, secretAccessKey: 'wrong' }).send(new ListQueuesCommand({}))).QueueUrls ?? []).length > 0);

      // AssumeRole: a role trusting someone else, and a role that does not exist, both hand out credentials.
      await iam.send(new CreateRoleCommand({
        RoleName: 'locked',
        AssumeRolePolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::000000000000:user/somebody-else' }, Action: 'sts:AssumeRole' }] }),
      }));
      const assume = async (RoleArn: string, caller: STSClient): Promise<Creds> => {
        const c = (await caller.send(new AssumeRoleCommand({ RoleArn, RoleSessionName: 'probe' }))).Credentials;
        return { accessKeyId: c?.AccessKeyId as string, secretAccessKey: c?.SecretAccessKey as string, sessionToken: c?.SessionToken as string };
      };
      const nobodySts = new STSClient(as(nobody));
      clients.push(nobodySts);
      assert.ok((await assume('arn:aws:iam::000000000000:role/locked', nobodySts)).accessKeyId);
      const otherAccount = await assume('arn:aws:iam::111111111111:role/does-not-exist', nobodySts);

      // A secret whose resource policy denies everyone is read all the same, in its own account.
      const denied = await secretsAs(localstack.credentials).send(new CreateSecretCommand({ Name: 'denied', SecretString: 'open' }));
      await secretsAs(localstack.credentials).send(new PutResourcePolicyCommand({
        SecretId: denied.ARN, ResourcePolicy: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Deny', Principal: '*', Action: 'secretsmanager:GetSecretValue', Resource: '*' }] }),
      }));
      assert.equal(await read(nobody, denied.ARN as string), 'open');

      // The account boundary: a secret of account 111111111111 under the default key is refused to
      // any other account's credentials (the account comes from the access key id; a role session's
      // key carries the role's account), as AWS refuses it.
      const theirs = await secretsAs({ accessKeyId: '111111111111', secretAccessKey: 'test' }).send(new CreateSecretCommand({ Name: 'theirs', SecretString: 'token' }));
      assert.equal(await read(nobody, theirs.ARN as string), 'InvalidRequestException');
      assert.equal(await read(otherAccount, theirs.ARN as string), 'token');
    } finally {
      for (const c of clients) c.destroy();
    }
  });
});
