// `rollouts undo web [--to-revision N] [--dry-run]`: go back to an earlier revision. Without
// --to-revision: the last revision that completed a release (never the release just aborted or
// superseded). To a revision that completed a release every pod moves at once, like a rollback; to
// one that never did, through the Rollout's steps like a release (shared/rollout/undo.ts). The
// target and its images are printed before anything is recorded (the API's dry run), and the undo
// is then sent pinned to that revision, so it goes where it said.
import { InvalidArgumentError, type Command } from 'commander';
import type { UndoPreview } from '../../api/types.ts';
import { imagesText } from '../../rollout/undo.ts';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addTargetOptions, keyOf, withApi } from '../options.ts';
import { addCommandIdOption, type CommandFlags } from './verbs.ts';

interface UndoFlags extends CommandFlags {
  toRevision?: number;
  dryRun?: boolean;
}

function revisionArg(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('must be a revision number >= 1 (see `rollouts get`).');
  return Number(value);
}

const HOW = `
Which revision: without --to-revision, the last revision that COMPLETED a release, other than the
current one (not kubectl's "previous revision": after an abort that is the release just aborted).
How it moves: to a revision that completed a release, every pod at once, like a rollback; to one that
never completed a release, through the Rollout's steps, with their batches, gates and approvals.
The target revision and its images are printed before anything changes; --dry-run stops there.`;

export function register(program: Command, io: CliIO): void {
  addCommandIdOption(addTargetOptions(
    program
      .command('undo <name>')
      .description('go back to an earlier revision (default: the last one that completed a release)')
      .option('--to-revision <n>', 'revision number to go back to (as shown by `rollouts get`)', revisionArg)
      .option('--dry-run', 'print where the undo would go and how it would move; change nothing'),
  ))
    .addHelpText('after', `${HOW}\n${TARGET_HELP}\n${examplesHelp([
      ['rollouts undo web --dry-run', 'where an undo would go, and how'],
      ['rollouts undo web', 'back to the last revision that completed a release'],
      ['rollouts undo web --to-revision 3', 'back to revision 3'],
    ])}`)
    .action((name: string, flags: UndoFlags) => withApi(io, flags, async ({ client, cluster }) => {
      const key = keyOf(name, flags, cluster);
      const asked = flags.toRevision === undefined ? {} : { toRevision: flags.toRevision };
      const preview = await client.command(key, 'undo', { ...asked, dryRun: true });
      io.out(`rollout/${name}: ${undoLine(preview.undo ?? null, flags.toRevision)}\n`);
      if (flags.dryRun) {
        io.out('dry run: nothing changed\n');
        return;
      }
      const pinned = preview.undo && preview.undo.revision > 0 ? { toRevision: preview.undo.revision } : asked;
      const res = await client.command(key, 'undo', { ...pinned, ...(flags.commandId ? { commandId: flags.commandId } : {}) });
      io.out(res.duplicate ? `rollout/${name}: undo ${res.commandId} was already recorded; nothing changed\n` : `rollout/${name}: undo requested\n`);
    }));
}

function undoLine(undo: UndoPreview | null, toRevision: number | undefined): string {
  if (undo === null) {
    const where = toRevision === undefined ? 'the last revision that completed a release' : `revision ${toRevision}`;
    return `undo to ${where} (this API cannot read the cluster: the reconciler resolves it and says how it moves in the history)`;
  }
  const how = undo.move === 'all-at-once'
    ? 'it completed a release, so every pod moves to it at once, like a rollback'
    : 'it never completed a release, so it goes through the Rollout\'s steps (batches, gates, approvals), like a release';
  return `undo to revision ${undo.revision} (${imagesText(undo.images)}): ${how}`;
}
