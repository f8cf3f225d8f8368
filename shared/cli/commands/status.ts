// `rollouts status web [--timeout 10m]`: wait for the release to end, for CI pipelines. Prints a line
// whenever the status changes; exit code 0 only when the release Completed, 1 when it failed, was
// aborted or degraded, or the timeout passed first.
import { Option, type Command } from 'commander';
import type { StatusResponse } from '../../api/types.ts';
import { formatDuration, parseDuration } from '../duration.ts';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT, type CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, addTargetOptions, keyOf, withApi, type OutputFlags, type TargetFlags } from '../options.ts';
import { phaseIcon } from '../views/symbols.ts';

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

/** One progress line; the message already names the step ("step 2/3: moving pods"). */
export function statusLine(s: StatusResponse): string {
  return `${phaseIcon(s.phase)} ${s.phase}: ${s.message}`;
}

async function status(name: string, flags: StatusFlags, io: CliIO): Promise<void> {
  await withApi(io, flags, async ({ client, cluster }, rt) => {
    const key = keyOf(name, flags, cluster);
    const progress = flags.output === 'json' ? io.err : io.out;
    const started = rt.now().getTime();
    const interrupted = new AbortController();
    const stopListening = rt.onInterrupt(() => interrupted.abort());
    let last = '';
    try {
      for (;;) {
        const s = await client.status(key);
        const line = statusLine(s);
        if (line !== last) progress(`${line}\n`);
        last = line;
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
