// A real Lambda execution environment for one function directory (e.g. an esbuild artifact with
// index.mjs): the AWS Lambda Runtime Interface Emulator (Go module, built by scripts/build-testbed.sh)
// running Node 22 with the Node runtime interface client (npm aws-lambda-ric, its native client built
// by the same script). One function per RIE process, as in Lambda.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { locateTestbedComponent } from '../../../shared/adapters/local/controlplane/assets.ts';
import { registerExitCleanup } from '../../../shared/adapters/local/controlplane/exitCleanup.ts';
import { freePorts } from '../../../shared/adapters/local/controlplane/ports.ts';
import { startTestbedDaemon } from '../testbedDaemon.ts';
import { TEST_CREDENTIALS, TEST_REGION } from './testAccount.ts';

/** RIE serves the Invoke API's own path, with the function always named `function`. */
export const RIE_INVOKE_PATH = '/2015-03-31/functions/function/invocations';

export interface LambdaRuntimeOptions {
  /** The function's code: LAMBDA_TASK_ROOT (holds index.mjs, or whatever `handler` names). */
  dir: string;
  /** Default index.handler. */
  handler?: string;
  /** The function's environment variables. */
  env?: Record<string, string>;
  /** AWS_LAMBDA_FUNCTION_NAME as the handler sees it (context.functionName). Default "function". */
  functionName?: string;
  /** Default 30. */
  timeoutSeconds?: number;
  /** Default 256. */
  memoryMb?: number;
}

export interface InvokeResult {
  status: number;
  /** The handler's result, parsed as JSON (or the error object Lambda reports). */
  payload: unknown;
  /** The raw response body. */
  body: string;
}

export interface LambdaRuntime {
  /** http://127.0.0.1:<port>: an AWS SDK LambdaClient's endpoint (function name "function"). */
  endpoint: string;
  /** endpoint + RIE_INVOKE_PATH. */
  invokeUrl: string;
  /**
   * POSTs `event` and returns the function's response. A function error is status 200 with an
   * {errorType, errorMessage} payload, and unlike real Lambda no X-Amz-Function-Error header.
   */
  invoke(event: unknown): Promise<InvokeResult>;
  /** The last 64 KB RIE and the function printed (START/END/REPORT lines, console output). */
  output(): string;
  pid: number;
  stop(): Promise<void>;
}

/** The emulator binary and the runtime client's entry, as built by scripts/build-testbed.sh. */
export function lambdaRuntimeBinaries(): { rie: string; ric: string } {
  return {
    rie: path.join(locateTestbedComponent('lambda-rie', ['bin/aws-lambda-rie']), 'bin/aws-lambda-rie'),
    ric: path.join(locateTestbedComponent('lambda-ric', ['index.mjs', 'rapid-client.node']), 'index.mjs'),
  };
}

export async function startLambdaRuntime(options: LambdaRuntimeOptions): Promise<LambdaRuntime> {
  const { rie, ric } = lambdaRuntimeBinaries();
  const dir = path.resolve(options.dir);
  const handler = options.handler ?? 'index.handler';
  const moduleFile = handler.slice(0, handler.lastIndexOf('.'));
  if (!['.mjs', '.js', '.cjs'].some((ext) => fs.existsSync(path.join(dir, moduleFile + ext)))) {
    throw new Error(`lambda runtime: no ${moduleFile}.mjs/.js/.cjs in ${dir} for handler ${handler}`);
  }
  const [port, runtimeApiPort] = (await freePorts(2)) as [number, number];
  const endpoint = `http://127.0.0.1:${port}`;
  const server = await startTestbedDaemon({
    name: 'aws-lambda-rie',
    binary: rie,
    // The runtime is started by RIE at the first invoke (Lambda's init), as `node <ric> <handler>`;
    // process.execPath is the project's Node 22.
    args: () => [
      `--runtime-interface-emulator-address=127.0.0.1:${port}`,
      // Its own Runtime API port, not the fixed default, so several functions can run at once.
      `--runtime-api-address=127.0.0.1:${runtimeApiPort}`,
      process.execPath, ric, handler,
    ],
    cwd: dir,
    env: () => ({
      // Test credentials and region, as a function's role would provide; the function's own env may override.
      AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
      AWS_REGION: TEST_REGION,
      AWS_DEFAULT_REGION: TEST_REGION,
      ...options.env,
      LAMBDA_TASK_ROOT: dir,
      _HANDLER: handler,
      AWS_LAMBDA_FUNCTION_NAME: options.functionName ?? 'function',
      AWS_LAMBDA_FUNCTION_TIMEOUT: String(options.timeoutSeconds ?? 30),
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryMb ?? 256),
      LOG_LEVEL: 'warn',
    }),
    ready: () => portOpen(port),
    what: `RIE listening on 127.0.0.1:${port}`,
  });
  // RIE starts the runtime in a process group of its own, out of reach of the daemon's group kill:
  // kill it by PID too, before RIE (exit cleanups run last-registered first).
  const killRuntime = (): void => {
    for (const pid of childPids(server.daemon.pid)) killQuietly(pid);
  };
  const cancelRuntimeCleanup = registerExitCleanup(killRuntime);
  const invokeUrl = endpoint + RIE_INVOKE_PATH;
  return {
    endpoint,
    invokeUrl,
    async invoke(event) {
      const response = await fetch(invokeUrl, { method: 'POST', body: JSON.stringify(event), headers: { 'content-type': 'application/json' } });
      const body = await response.text();
      let payload: unknown = body;
      try {
        payload = JSON.parse(body);
      } catch {
        // Not JSON (e.g. a plain-text RIE error): keep the text.
      }
      return { status: response.status, payload, body };
    },
    output: () => server.daemon.logTail(Number.MAX_SAFE_INTEGER),
    pid: server.daemon.pid,
    async stop() {
      // On SIGTERM RIE stops its runtime itself; whatever is left is killed.
      const runtimePids = childPids(server.daemon.pid);
      await server.stop();
      for (const pid of runtimePids) killQuietly(pid);
      cancelRuntimeCleanup();
    },
  };
}

/** Direct children of `parent` (Linux /proc). */
function childPids(parent: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised command: state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) children.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return children;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function portOpen(port: number): Promise<true> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', reject);
  });
}
