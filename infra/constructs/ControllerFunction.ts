// One Lambda entry point of the controller: bundled locally by infra/bundling.ts (the same function
// the bundle report and the Lambda-runtime tests build with), Node 22 on Graviton, X-Ray active,
// its own log group and a role that starts empty, so every permission it ends up with is one the
// stack granted on purpose.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { Duration } from 'aws-cdk-lib';
import { PolicyStatement as Statement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../shared/app/observability.ts';
import { BUNDLE_HANDLER, BUNDLE_RUNTIME_ENV } from '../bundling.ts';
import type { FunctionName } from '../bundling.ts';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ControllerFunctionProps {
  /** Which entry point: functions/<name>/handler.ts, exporting `handler`. */
  readonly name: FunctionName;
  readonly description: string;
  /** Also buys CPU: Lambda allocates vCPU in proportion to memory. */
  readonly memorySize: number;
  readonly timeout: Duration;
  /** Configuration variables (names from shared/app/config.ts ENV). */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Reserved concurrency. Not reserved by default: a reservation fails to deploy in accounts whose
   * unreserved pool is at its minimum (new accounts), and the reconcile workers are capped on the
   * event source mappings instead.
   * @default - none
   */
  readonly reservedConcurrentExecutions?: number;
  /**
   * Retries of asynchronous invocations (Scheduler invokes asynchronously).
   * @default 2 (the Lambda default)
   */
  readonly retryAttempts?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Powertools logger level. @default 'INFO' */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** CloudWatch namespace of the Powertools (EMF) metrics. @default METRICS_NAMESPACE ('ServerlessRollouts') */
  readonly metricsNamespace?: string;
  /** Run in these subnets of a VPC with this security group (infra/constructs/ReconcileNetwork.ts). @default no VPC */
  readonly network?: { vpc: IVpc; subnets: SubnetSelection; securityGroup: ISecurityGroup };
}

export class ControllerFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ControllerFunctionProps) {
    super(scope, id);
    // No AWSLambdaBasicExecutionRole: it allows logs:* on every log group of the account; this role
    // may write to its own log group only (granted below).
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `serverless-rollouts ${props.name} function`,
    });
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      // Logs are operational and expire anyway; the table's history is the durable record.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.logGroup.grantWrite(this.role);

    this.fn = new LambdaFunction(this, 'Function', {
      code: bundledCode(props.name),
      handler: BUNDLE_HANDLER,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: Tracing.ACTIVE,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      ...(props.network ? { vpc: props.network.vpc, vpcSubnets: props.network.subnets, securityGroups: [props.network.securityGroup] } : {}),
      retryAttempts: props.retryAttempts,
      environment: {
        ...props.environment,
        ...BUNDLE_RUNTIME_ENV,
        // One service per function (the handlers' own default names), so each has its own metric dimension.
        POWERTOOLS_SERVICE_NAME: `rollouts-${props.name}`,
        POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
      },
    });

    if (props.network) this.grantNetworkInterfaces(props.network);

    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Pinned to nodejs22.x on purpose: the Node 22 toolchain (node@22 devDependency, engines >=22.12) is what the tests run, '
        + 'and @kubernetes/client-node 2.x (undici 8) is verified on Node 22; moving to nodejs24.x is a deliberate upgrade with its own test run.',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions, '
        + (props.network
          ? 'nor do ec2:DescribeNetworkInterfaces and ec2:DescribeSubnets, which Lambda needs to attach the function to its VPC, so AWS requires Resource "*" for these four.'
          : 'so AWS requires Resource "*" (the only wildcard statement of this role).'),
    });
  }

  /**
   * What Lambda needs to attach the function to its subnets (the managed
   * AWSLambdaVPCAccessExecutionRole, narrowed): network interfaces created only in these subnets with
   * this security group; the Describe calls have no resource-level permissions.
   */
  private grantNetworkInterfaces(network: NonNullable<ControllerFunctionProps['network']>): void {
    const { region, account, partition } = Stack.of(this);
    const arn = (resource: string) => `arn:${partition}:ec2:${region}:${account}:${resource}`;
    const subnetIds = network.subnets.subnets?.map((s) => s.subnetId) ?? [];
    this.grant(new Statement({
      actions: ['ec2:CreateNetworkInterface'],
      resources: [arn('network-interface/*'), ...subnetIds.map((id) => arn(`subnet/${id}`)), arn(`security-group/${network.securityGroup.securityGroupId}`)],
    }));
    this.grant(new Statement({ actions: ['ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'], resources: [arn('network-interface/*')] }));
    this.grant(new Statement({ actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'], resources: ['*'] }));
    const literal = (v: string, placeholder: string) => (Token.isUnresolved(v) ? placeholder : v);
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:${literal(partition, '<AWS::Partition>')}:ec2:${literal(region, '<AWS::Region>')}:${literal(account, '<AWS::AccountId>')}:network-interface/*]`,
      reason: 'Lambda creates and deletes the function\'s network interfaces itself, with names not known in advance; creation is limited to the '
        + 'subnets and the security group of the deploy parameter vpc.',
    });
  }

  /** Adds one statement to this function's role (its only way to gain permissions). */
  grant(statement: PolicyStatement): void {
    this.role.addToPolicy(statement);
  }
}

/**
 * The function's asset: scripts/bundle-lambda.mjs (infra/bundling.ts) run by the Node that runs the
 * CDK app, at synth. Not NodejsFunction: its esbuild runs from the command line, which takes no
 * plugins, and the bundle needs two (infra/bundling.ts) to stay lean. The asset is hashed by its
 * output, so an unchanged bundle is not uploaded again.
 */
function bundledCode(name: FunctionName): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling always succeeds or fails the synth (there is no Docker fallback).
      image: DockerImage.fromRegistry('local-bundling-only'),
      // What the bundling runs; also what tells the four assets apart (CDK caches bundles by their
      // options, and the local bundler below is not part of that key).
      command: ['node', 'scripts/bundle-lambda.mjs', name, '/asset-output'],
      local: {
        tryBundle(outputDir) {
          const run = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts/bundle-lambda.mjs'), name, outputDir], { stdio: 'inherit' });
          if (run.status !== 0) throw new Error(`bundling ${name} failed (scripts/bundle-lambda.mjs exit ${run.status ?? run.signal})`);
          return true;
        },
      },
    },
  });
}
