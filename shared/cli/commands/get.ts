// `rollouts get web [--watch]`: the rollout's status, its steps, and the revision → ReplicaSet →
// pods tree of the live workload (kubectl-argo-rollouts' `get rollout` layout).
import { Option, type Command } from 'commander';
import type { RolloutKey } from '../../rollout/types.ts';
import { ApiError, type ApiClient } from '../../client/client.ts';
import { formatDuration, parseDuration } from '../duration.ts';
import { examplesHelp } from '../help.ts';
import { EXIT, type CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, addTargetOptions, keyOf, withApi, type OutputFlags, type TargetFlags } from '../options.ts';
import { renderRollout, type RolloutSnapshot } from '../views/rolloutScreen.ts';
import { watchScreen } from '../watchScreen.ts';

interface GetFlags extends TargetFlags, OutputFlags {
  watch?: boolean;
  timeout?: number;
}

/** The rollout and (when the API can read the cluster) its live workload, fetched together. */
export async function fetchSnapshot(client: ApiClient, key: RolloutKey, now: () => Date): Promise<RolloutSnapshot> {
  const [rollout, workload] = await Promise.all([
    client.get(key),
    client.workload(key).then(
      (w) => ({ w, error: null }),
      (err: unknown) => {
        // The tree is a bonus: an API without cluster access (503), a missing Deployment or a cluster
        // error still shows the rest. An unknown rollout is reported by the GET beside it.
        if (err instanceof ApiError) return { w: null, error: err.message };
        throw err;
      },
    ),
  ]);
  return { rollout, workload: workload.w, workloadError: workload.error, fetchedAt: now() };
}

async function get(name: string, flags: GetFlags, command: Command, io: CliIO): Promise<void> {
  if (flags.watch && flags.output === 'json') command.error('error: --watch shows the screen; use --output json without --watch', { exitCode: EXIT.usage, code: 'rollouts.usage' });
  if (flags.timeout !== undefined && !flags.watch) command.error('error: --timeout goes with --watch', { exitCode: EXIT.usage, code: 'rollouts.usage' });
  await withApi(io, flags, async ({ client, cluster }, rt) => {
    const key = keyOf(name, flags, cluster);
    if (!flags.watch) {
      const s = await fetchSnapshot(client, key, rt.now);
      io.out(flags.output === 'json' ? `${JSON.stringify({ ...s.rollout, workload: s.workload }, null, 2)}\n` : renderRollout(s, rt.now()));
      return;
    }
    const end = await watchScreen(io, rt, {
      poll: () => fetchSnapshot(client, key, rt.now),
      render: renderRollout,
      active: (s) => s.rollout.state.release !== null || s.rollout.state.commands.length > 0,
      pollMs: client.target.mode === 'local' ? 1000 : 2000,
      timeoutMs: flags.timeout ?? null,
    });
    if (end === 'timeout') io.err(`stopped watching after ${formatDuration(flags.timeout ?? 0)} (--timeout)\n`);
  });
}

export function register(program: Command, io: CliIO): void {
  addOutputOption(addTargetOptions(
    program
      .command('get <name>')
      .description('show a rollout: status, steps, and the revisions of its workload with their pods')
      .option('-w, --watch', 'keep the screen up to date until Ctrl-C or the release ends')
      .addOption(new Option('--timeout <duration>', 'with --watch: stop after this long (e.g. 10m)').argParser(parseDuration)),
  ))
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts get web', 'the rollout web in namespace default'],
      ['rollouts get web --watch', 'redraw as pods move; ends when the release ends, or Ctrl-C'],
      ['rollouts get web -o json', 'the stored rollout, its state and the live workload as JSON'],
    ])}`)
    .action((name: string, flags: GetFlags, command: Command) => get(name, flags, command, io));
}
