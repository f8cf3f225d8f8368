// `rollouts serve` (`npm start`): local mode in the foreground until Ctrl-C. See shared/local/localMode.ts.
import { InvalidArgumentError, type Command } from 'commander';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT, type CliIO } from '../io.ts';
import { runtimeOf } from '../runtime.ts';
import { MAX_SANDBOX_CLUSTERS, parseClusterCount } from '../../local/clusterCount.ts';

interface ServeFlags {
  sandbox?: boolean;
  clusters?: number;
  fresh?: boolean;
  port?: number;
  podReadyMs?: number;
  resyncSeconds?: number;
  /** false with --no-watch. */
  watch?: boolean;
  verbose?: boolean;
  dynamodbEndpoint?: string;
}

const POD_READY_ENV = 'ROLLOUTS_POD_READY_MS';
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function wholeNumber(what: string, max: number, min = 0) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) > max || Number(value) < min) throw new InvalidArgumentError(`${what} must be a whole number from ${min} to ${max}.`);
    return Number(value);
  };
}

/** --clusters N (shared/local/clusterCount.ts says what is accepted). */
function clusterCount(value: string): number {
  const n = parseClusterCount(value);
  if (typeof n === 'string') throw new InvalidArgumentError(`${n}.`);
  return n;
}

function httpUrl(value: string): string {
  if (!/^https?:\/\/[^\s/]+\/?$/.test(value)) throw new InvalidArgumentError('--dynamodb-endpoint must be an http(s) URL such as http://127.0.0.1:8000.');
  return value;
}

function clockTime(d: Date): string {
  return d.toTimeString().slice(0, 8);
}

async function serve(flags: ServeFlags, io: CliIO): Promise<void> {
  const rt = runtimeOf(io);
  const fromEnv = rt.env[POD_READY_ENV];
  const podReadyDelayMs = flags.podReadyMs ?? (fromEnv ? wholeNumber(POD_READY_ENV, 600_000)(fromEnv) : undefined);
  const log = (line: string): void => io.out(`${clockTime(rt.now())}  ${line}\n`);

  // Ctrl-C is ours from the start: during start-up it aborts, afterwards it stops everything.
  const stopRequested = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested.signal.aborted) return;
    log(`${signal}: stopping`);
    stopRequested.abort();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  // `npm start` killed with -9 cannot pass a signal on: without its parent, serve stops everything
  // it started (the control plane too) instead of running on re-parented to PID 1.
  const stopWatchingParent = rt.onParentGone((parent) => {
    if (stopRequested.signal.aborted) return;
    log(`the process that started serve (PID ${parent}) is gone: stopping`);
    stopRequested.abort();
  });
  const ours = new Map<NodeJS.Signals, Set<NodeJS.SignalsListener>>(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  try {
    // Loaded here: the other verbs do not pay for dynalite, the Kubernetes client and the engine.
    const [{ startLocalMode }, { resolveDataDir }, { renderBanner }, { DEFAULT_SANDBOX_POD_READY_MS }] = await Promise.all([
      import('../../local/localMode.ts'), import('../../local/dataDir.ts'), import('../../local/banner.ts'), import('../../local/sandbox.ts'),
    ]);
    const started = performance.now();
    let local;
    try {
      local = await startLocalMode({
        dataDir: resolveDataDir(rt.env, rt.cwd),
        cluster: flags.sandbox ? 'sandbox' : 'auto',
        ...(flags.clusters === undefined ? {} : { clusters: flags.clusters }),
        fresh: flags.fresh ?? false,
        watch: flags.watch ?? true,
        ...(flags.dynamodbEndpoint === undefined ? {} : { dynamodbEndpoint: flags.dynamodbEndpoint }),
        ...(flags.resyncSeconds === undefined ? {} : { resyncPeriodMs: flags.resyncSeconds * 1000 }),
        ...(podReadyDelayMs === undefined ? {} : { podReadyDelayMs }),
        ...(flags.port === undefined ? {} : { port: flags.port }),
        env: rt.env,
        log,
        verbose: flags.verbose ?? false,
      });
    } catch (err) {
      if (stopRequested.signal.aborted) {
        log('stopped during start-up');
        return;
      }
      throw new CliExit(EXIT.failed, `error: local mode did not start: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      detachOtherSignalHandlers(ours);
    }
    io.out(`\n${renderBanner({
      endpoint: local.endpoint, paths: local.paths, cluster: local.cluster, principal: local.principal,
      podReadyDelayMs: local.cluster.kind !== 'kubeconfig' ? (podReadyDelayMs ?? DEFAULT_SANDBOX_POD_READY_MS) : null,
      sweepSeconds: local.sweepIntervalMs / 1000, resyncSeconds: local.resyncPeriodMs / 1000, watched: local.watched,
      startupMs: Math.round(performance.now() - started), cwd: rt.cwd,
    })}\n`);
    if (!stopRequested.signal.aborted) await new Promise((resolve) => stopRequested.signal.addEventListener('abort', resolve, { once: true }));
    const stopping = performance.now();
    try {
      await local.stop();
    } catch (err) {
      throw new CliExit(EXIT.failed, `error: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    log(`stopped in ${((performance.now() - stopping) / 1000).toFixed(1)} s`);
  } finally {
    stopWatchingParent();
    for (const s of SIGNALS) process.off(s, onSignal);
  }
}

/**
 * The local control plane installs a last-resort SIGINT/SIGTERM hook that SIGKILLs its daemons and
 * re-raises the signal (for crashed tests). Local mode stops them gracefully itself on Ctrl-C, so
 * the signal hooks added while starting are removed; the control plane's exit hook stays as the
 * safety net should this process die without stopping.
 */
function detachOtherSignalHandlers(ours: Map<NodeJS.Signals, Set<NodeJS.SignalsListener>>): void {
  for (const [signal, before] of ours) {
    for (const listener of process.listeners(signal)) if (!before.has(listener)) process.off(signal, listener);
  }
}

export function register(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description('run local mode: the API, reconcile queue, sweep and watches in one process, against your kubeconfig\'s cluster or a sandbox')
    .option('--sandbox', 'start a local Kubernetes control plane with a demo Deployment (the default when no kubeconfig answers)')
    .option('--clusters <n>', `sandbox clusters to start, registered as c1..cN with fleet labels (ring=canary on c1, ring=rest on the others; region, zone, time zone); 1 to ${MAX_SANDBOX_CLUSTERS}, default 1`, clusterCount)
    .option('--fresh', 'start over: delete the sandbox cluster and the stored rollouts first (default: keep them)')
    .option('--resync-seconds <s>', 'reconcile every rollout at least this often, events or not (default 30)', wholeNumber('--resync-seconds', 86_400, 1))
    .option('--no-watch', 'for tests: run without watches, as if every watch event were lost (releases then move through the resync)')
    .option('--port <port>', 'API port on 127.0.0.1 (default: any free port; the URL is written to <data dir>/endpoint)', wholeNumber('--port', 65535))
    .option('--pod-ready-ms <ms>', `sandbox: how long pods take to become ready (default 2000, or $${POD_READY_ENV})`, wholeNumber('--pod-ready-ms', 600_000))
    .option('--dynamodb-endpoint <url>', 'keep the rollouts in this DynamoDB (e.g. DynamoDB Local) instead of the embedded one', httpUrl)
    .option('-v, --verbose', 'print every reconcile pass')
    .addHelpText('after', `
Data directory: ./.rollouts (or $ROLLOUTS_HOME): DynamoDB data, the sandbox, "endpoint" (the API URL
while serve runs) and "kubeconfig" (for kubectl). Ctrl-C stops everything and exits 0; so does the
end of the process that started serve (a kill -9 of \`npm start\`'s npm). Everything is kept for the
next start, which goes on where this one stopped (also after a crash or kill -9); --fresh starts over.
${examplesHelp([
      ['npm start', 'the same as `rollouts serve`'],
      ['rollouts serve --sandbox --pod-ready-ms 200', 'always the sandbox, with fast pods'],
      ['npm start -- --fresh', 'a new sandbox, no rollouts'],
      ['npm start -- --clusters 3', 'three sandbox clusters c1..c3 for a fleet release (examples/fleet.yaml)'],
    ])}`)
    .action((flags: ServeFlags) => serve(flags, io));
}
