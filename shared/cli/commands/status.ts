// `rollouts status web [--timeout 10m]`: wait for the release to end, for CI pipelines. Shows the
// step, the pods moved of the batch and the reason: one line redrawn in place on a terminal, a line
// per change otherwise; exit code 0 only when the release Completed, 1 when it failed, was aborted
// or degraded, or the timeout passed first.
import { Option, type Command } from 'commander';
import type { StatusResponse } from '../../api/types.ts';
import type { RolloutKey } from '../../rollout/types.ts';
import { ApiError, type ApiClient } from '../../client/client.ts';
import { batchProgress, type BatchProgress } from '../../client/progress.ts';
import { formatDuration, parseDuration } from '../duration.ts';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT, type CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, addTargetOptions, keyOf, withApi, type OutputFlags, type TargetFlags } from '../options.ts';
import { factsOfStatus, rolloutStatus } from '../../client/status.ts';

interface StatusFlags extends TargetFlags, OutputFlags {
  timeout: number;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export type Verdict = 'completed' | 'failed' | null;

/**
 * The CI verdict, or null to keep waiting. Only a quiet rollout counts: a command waiting to be
 * applied (a release just requested, an abort) means the phase shown is about to change, and a
 * phase left over from the previous release must not end the wait. Healthy (no release yet) keeps
 * waiting too: a release started by `kubectl set image` or GitOps has not been noticed yet.
 */
export function statusVerdict(s: StatusResponse): Verdict {
  if (s.pendingCommands.length > 0 || s.removing) return null;
  if (s.settled) {
    if (s.phase === 'Completed') return 'completed';
    if (s.phase === 'Aborted' || s.phase === 'Failed' || s.phase === 'Degraded') return 'failed';
    return null;
  }
  // A failed batch waiting for retry/abort, or a broken contract: nothing will change by itself.
  if (s.phase === 'Failed' || s.phase === 'Degraded') return 'failed';
  return null;
}

/**
 * One progress line: the status (the one every view shows), the reason (which names the step and
 * what blocks it), and while pods move, how many of the batch have:
 * "◌ Progressing: step 2/3: moving pods · 3/5 pods of step 2/3".
 */
export function statusLine(s: StatusResponse, progress: BatchProgress | null = null): string {
  const pods = progress ? ` · ${progress.moved}/${progress.batch} pods of step ${progress.step}/${progress.steps}` : '';
  return `${rolloutStatus(factsOfStatus(s)).text}: ${s.message}${pods}`;
}

/** Pods move while a batch is upgrading or verifying, while finishing, and while rolling back. */
function podsMoving(s: StatusResponse): boolean {
  return s.release !== null && s.release.failure === null && (s.release.finalizing || s.step?.state === 'Upgrading' || s.step?.state === 'Verifying');
}

/**
 * The batch's pod counts, read from the live workload only while pods move (a long approval wait
 * reads no cluster); null when the API cannot show the workload (no cluster access, 503).
 */
async function progressOf(client: ApiClient, key: RolloutKey, s: StatusResponse): Promise<BatchProgress | null> {
  if (!podsMoving(s)) return null;
  try {
    const [rollout, workload] = await Promise.all([client.get(key), client.workload(key)]);
    return batchProgress(rollout.spec, rollout.state, workload);
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}

async function status(name: string, flags: StatusFlags, io: CliIO): Promise<void> {
  await withApi(io, flags, async ({ client, cluster }, rt) => {
    const key = keyOf(name, flags, cluster);
    const progress = flags.output === 'json' ? io.err : io.out;
    const started = rt.now().getTime();
    const interrupted = new AbortController();
    const stopListening = rt.onInterrupt(() => interrupted.abort());
    // On a terminal the line is redrawn in place; otherwise (a CI log, a pipe) each change is a line.
    const redraw = rt.isTTY && flags.output !== 'json';
    let last = '';
    const show = (line: string): void => {
      if (line === last) return;
      progress(redraw ? `\r\x1b[K${line}` : `${line}\n`);
      last = line;
    };
    try {
      for (;;) {
        const s = await client.status(key);
        show(statusLine(s, await progressOf(client, key, s)));
        const verdict = statusVerdict(s);
        if (verdict !== null) {
          if (flags.output === 'json') io.out(`${JSON.stringify(s, null, 2)}\n`);
          if (verdict === 'completed') return;
          throw new CliExit(EXIT.failed, `error: release of ${name} ended ${s.phase}`);
        }
        if (rt.now().getTime() - started >= flags.timeout) {
          if (flags.output === 'json') io.out(`${JSON.stringify(s, null, 2)}\n`);
          throw new CliExit(EXIT.failed, `error: timed out after ${formatDuration(flags.timeout)} waiting for ${name} (still ${s.phase})`);
        }
        if (interrupted.signal.aborted) throw new CliExit(EXIT.failed, `error: interrupted while waiting for ${name} (still ${s.phase})`);
        await rt.sleep(client.target.mode === 'local' ? 1000 : 2000, interrupted.signal);
      }
    } finally {
      stopListening();
      // The redrawn line ends before anything else is printed.
      if (redraw && last !== '') progress('\n');
    }
  });
}

export function register(program: Command, io: CliIO): void {
  addOutputOption(addTargetOptions(
    program
      .command('status <name>')
      .description('wait until the release ends; exit code 0 only if it Completed (for CI)')
      .addOption(new Option('--timeout <duration>', 'give up after this long (exit code 1)').argParser(parseDuration).default(DEFAULT_TIMEOUT_MS, '10m')),
  ))
    .addHelpText('after', `${TARGET_HELP}

Exit codes of status:
  0  the release Completed
  1  it Failed, was Aborted or is Degraded, the --timeout passed, or the API could not be reached
  2  usage error
${examplesHelp([
      ['rollouts release web --image app=nginx:1.28 && rollouts status web --timeout 30m', 'a CI step: fails unless the release completes within 30 minutes'],
      ['rollouts status web -o json', 'progress on stderr, the final status as JSON on stdout'],
    ])}`)
    .action((name: string, flags: StatusFlags) => status(name, flags, io));
}
