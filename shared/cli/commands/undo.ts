// `rollouts undo web [--to-revision N]`: roll the workload back to an earlier revision (the previous
// one by default), moving every pod at once as one implicit 100% step.
import { InvalidArgumentError, type Command } from 'commander';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addTargetOptions } from '../options.ts';
import { addCommandIdOption, sendCommand, type CommandFlags } from './verbs.ts';

interface UndoFlags extends CommandFlags {
  toRevision?: number;
}

function revisionArg(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('must be a revision number >= 1 (see `rollouts get`).');
  return Number(value);
}

export function register(program: Command, io: CliIO): void {
  addCommandIdOption(addTargetOptions(
    program
      .command('undo <name>')
      .description('go back to an earlier revision (default: the previous one)')
      .option('--to-revision <n>', 'revision number to go back to (as shown by `rollouts get`)', revisionArg),
  ))
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts undo web', 'back to the previous revision'],
      ['rollouts undo web --to-revision 3', 'back to revision 3'],
    ])}`)
    .action((name: string, flags: UndoFlags) =>
      sendCommand(io, name, flags, 'undo', flags.toRevision === undefined ? {} : { toRevision: flags.toRevision },
        `rollout/${name}: undo requested (to ${flags.toRevision === undefined ? 'the previous revision' : `revision ${flags.toRevision}`})`));
}
