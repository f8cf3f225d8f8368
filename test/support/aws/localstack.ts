// Real LocalStack (localstack-core 2026.3.0, Apache-2.0, from PyPI) on loopback, without Docker: the
// venv built by scripts/build-testbed.sh from scripts/localstack/requirements.lock, started in this
// process tree and stopped by PID. Two plugins of ours (scripts/localstack/plugins): DynamoDB served
// by moto, since LocalStack's own needs Java and DynamoDB Local; and Lambda functions run by the
// upstream Lambda RIE with Node 22 and aws-lambda-ric (the test bed's, as lambdaRuntime.ts runs
// them), since LocalStack's only executor is Docker.
import path from 'node:path';
import { locateTestbedComponent } from '../../../shared/adapters/local/controlplane/assets.ts';
import { freePorts } from '../../../shared/adapters/local/controlplane/ports.ts';
import { lambdaRuntimeBinaries } from './lambdaRuntime.ts';
import { startTestbedDaemon } from '../testbedDaemon.ts';
import { TEST_CREDENTIALS, TEST_REGION } from './testAccount.ts';

/** What the product's stack and tests use. */
export const LOCALSTACK_SERVICES = [
  'sqs', 'events', 'scheduler', 'sts', 'iam', 'cloudformation', 's3', 'ssm', 'secretsmanager', 'lambda', 'cloudwatch', 'logs', 'dynamodb',
] as const;

export interface LocalStackOptions {
  /** Default LOCALSTACK_SERVICES. */
  services?: readonly string[];
  /** More LocalStack configuration variables (they win over ours). */
  env?: Record<string, string>;
}

export interface LocalStack {
  /** http://127.0.0.1:<port>: every service's endpoint (AWS_ENDPOINT_URL). */
  endpoint: string;
  region: string;
  credentials: typeof TEST_CREDENTIALS;
  pid: number;
  /** SIGTERM, then SIGKILL after 10 s (after real use hypercorn may never stop on TERM); waits for the whole process group. */
  stop(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const python = path.join(locateTestbedComponent('localstack', ['.complete', 'venv/bin/python']), 'venv/bin/python');
  const binaries = lambdaRuntimeBinaries();
  const [port] = (await freePorts(1)) as [number];
  const endpoint = `http://127.0.0.1:${port}`;
  const server = await startTestbedDaemon({
    name: 'localstack',
    binary: python,
    args: () => ['-m', 'localstack.runtime.main'],
    env: (dir) => ({
      GATEWAY_LISTEN: `127.0.0.1:${port}`,
      LOCALSTACK_HOST: `127.0.0.1:${port}`,
      // hypercorn, told it is not in Docker, binds only the address above (the default server binds 0.0.0.0).
      GATEWAY_SERVER: 'hypercorn',
      OVERRIDE_IN_DOCKER: '0',
      DNS_ADDRESS: '0', // no DNS server on UDP 53
      DISABLE_EVENTS: '1', // no telemetry
      SKIP_SSL_CERT_DOWNLOAD: '1', // cannot succeed offline
      PERSISTENCE: '0',
      FILESYSTEM_ROOT: path.join(dir, 'fs'),
      XDG_CACHE_HOME: path.join(dir, 'cache'), // plux's plugin index stays out of ~/.cache
      // Queue URLs on the gateway itself (http://127.0.0.1:<port>/queue/...), not *.localhost.localstack.cloud,
      // which needs public DNS.
      SQS_ENDPOINT_STRATEGY: 'path',
      PROVIDER_OVERRIDE_DYNAMODB: 'moto',
      // Functions run as aws-lambda-rie + Node 22 + aws-lambda-ric processes under LocalStack
      // (scripts/localstack/plugins/rollouts_localstack/lambda_executor.py), killed with it.
      LAMBDA_RUNTIME_EXECUTOR: 'rollouts-local',
      ROLLOUTS_LAMBDA_RIE: binaries.rie,
      ROLLOUTS_LAMBDA_RIC: binaries.ric,
      ROLLOUTS_LAMBDA_NODE: process.execPath,
      SERVICES: (options.services ?? LOCALSTACK_SERVICES).join(','),
      ...options.env,
    }),
    ready: async () => {
      const response = await fetch(`${endpoint}/_localstack/health`);
      if (!response.ok) throw new Error(`GET /_localstack/health → ${response.status}`);
      return true;
    },
    what: 'GET /_localstack/health',
    timeoutMs: 90_000,
    stopGraceMs: 10_000,
  });
  return { endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, pid: server.daemon.pid, stop: server.stop };
}
