// `rollouts delete web [--wait]`: stop managing the workload. The rollout first hands the workload
// back to its native controller exactly as the user had it (the fields a release took over, the
// pause), then forgets itself; --wait blocks until it is gone. Prints what the hand-back restores.
import { Option, type Command } from 'commander';
import type { CommandResponse } from '../../api/types.ts';
import { ApiError } from '../../client/client.ts';
import { formatDuration, parseDuration } from '../duration.ts';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT, type CliIO } from '../io.ts';
import { TARGET_HELP, addTargetOptions, keyOf, withApi } from '../options.ts';
import { addCommandIdOption, type CommandFlags } from './verbs.ts';

interface DeleteFlags extends CommandFlags {
  wait?: boolean;
  timeout: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

async function remove(name: string, flags: DeleteFlags, io: CliIO): Promise<void> {
  await withApi(io, flags, async ({ client, cluster }, rt) => {
    const key = keyOf(name, flags, cluster);
    const res = await client.delete(key, flags.commandId ? { commandId: flags.commandId } : {});
    io.out(res.duplicate ? `rollout/${name}: delete ${res.commandId} was already recorded\n` : `rollout/${name} deleting: handing the workload back to its native controller\n`);
    const restores = describeHandBack(res);
    if (!flags.wait) {
      io.out(`${restores}\n`);
      return;
    }
    const started = rt.now().getTime();
    for (;;) {
      try {
        await client.status(key);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) break;
        throw err;
      }
      if (rt.now().getTime() - started >= flags.timeout) {
        throw new CliExit(EXIT.failed, `error: rollout/${name} was not gone after ${formatDuration(flags.timeout)} (is the reconciler running? \`rollouts get ${name}\` says why)`);
      }
      await rt.sleep(client.target.mode === 'local' ? 500 : 2000);
    }
    io.out(`rollout/${name} deleted; ${restores.replace(/^will restore/, 'restored')}\n`);
  });
}

function describeHandBack(res: CommandResponse): string {
  const back = res.handBack;
  if (!back) return 'will restore the workload as it was before the rollout took it over (this API cannot read the cluster to say more)';
  if (back.restores.length === 0) return `will restore nothing on ${back.workload}: it carries nothing of ours`;
  return `will restore on ${back.workload}:\n${back.restores.map((r) => `  ${r}`).join('\n')}`;
}

export function register(program: Command, io: CliIO): void {
  addCommandIdOption(addTargetOptions(
    program
      .command('delete <name>')
      .description('stop managing the workload: hand it back to its native controller as it was, then forget the rollout')
      .option('--wait', 'wait until the workload has been handed back and the rollout is gone')
      .addOption(new Option('--timeout <duration>', 'with --wait: give up after this long (exit code 1)').argParser(parseDuration).default(DEFAULT_TIMEOUT_MS, '5m')),
  ))
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts delete web', 'hand the Deployment back and delete the rollout (returns at once)'],
      ['rollouts delete web --wait', 'the same, and wait until it is done'],
    ])}`)
    .action((name: string, flags: DeleteFlags) => remove(name, flags, io));
}
