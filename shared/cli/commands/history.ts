// `rollouts history web`: every transition of the rollout's releases, oldest first.
import type { Command } from 'commander';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, addTargetOptions, keyOf, withApi, type OutputFlags, type TargetFlags } from '../options.ts';
import { formatTable } from '../table.ts';

type HistoryFlags = TargetFlags & OutputFlags;

export function register(program: Command, io: CliIO): void {
  addOutputOption(addTargetOptions(program.command('history <name>').description('list the transitions of every release of a rollout')))
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts history web', 'one line per transition: time, release, event, phase, step, who'],
      ['rollouts history web -o json', 'the same as JSON'],
    ])}`)
    .action((name: string, flags: HistoryFlags) =>
      withApi(io, flags, async ({ client, cluster }) => {
        const res = await client.history(keyOf(name, flags, cluster));
        if (flags.output === 'json') return io.out(`${JSON.stringify(res, null, 2)}\n`);
        if (res.history.length === 0) return io.out(`no history yet for rollout/${name}\n`);
        const rows = [
          ['TIME', 'RELEASE', 'EVENT', 'PHASE', 'STEP', 'BY', 'MESSAGE'],
          ...res.history.map((h) => [h.at.replace(/\.\d+Z$/, 'Z'), h.releaseId, h.type, h.phase, h.stepIndex === null ? '-' : String(h.stepIndex + 1), h.by ?? '-', h.message]),
        ];
        io.out(`${formatTable(rows)}\n`);
      }));
}
