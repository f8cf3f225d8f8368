// The command verbs without arguments of their own: approve, pause, resume, abort (and retry).
// Each records a command on the rollout; the reconcile applies it within a moment.
import type { Command } from 'commander';
import type { CommandVerb } from '../../api/commandBodies.ts';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addTargetOptions, keyOf, withApi, type TargetFlags } from '../options.ts';

export interface CommandFlags extends TargetFlags {
  commandId?: string;
}

const VERBS: readonly { verb: CommandVerb; description: string; done: (name: string) => string }[] = [
  { verb: 'approve', description: 'let a release waiting at a pause step go on to the next step', done: (n) => `rollout/${n} approved: the release moves on to the next step` },
  { verb: 'pause', description: 'stop moving pods (until resume)', done: (n) => `rollout/${n} paused: no pods move until \`rollouts resume ${n}\`` },
  { verb: 'resume', description: 'undo a pause', done: (n) => `rollout/${n} resumed` },
  { verb: 'abort', description: 'stop the release and return every pod to the stable revision', done: (n) => `rollout/${n} aborted: every pod returns to the stable revision` },
  { verb: 'retry', description: 'try the failed batch of a release again', done: (n) => `rollout/${n}: retrying the failed batch` },
];

export function addCommandIdOption(cmd: Command): Command {
  return cmd.option('--command-id <id>', 'idempotency key: sending the same id again changes nothing (for retrying CI jobs)');
}

/** Sends `verb` and prints `done`, or that an earlier request with the same id was already recorded. */
export async function sendCommand(io: CliIO, name: string, flags: CommandFlags, verb: CommandVerb, body: Record<string, unknown>, done: string): Promise<void> {
  await withApi(io, flags, async ({ client, cluster }) => {
    const res = await client.command(keyOf(name, flags, cluster), verb, { ...body, ...(flags.commandId ? { commandId: flags.commandId } : {}) });
    io.out(res.duplicate ? `rollout/${name}: ${verb} ${res.commandId} was already recorded; nothing changed\n` : `${done}\n`);
  });
}

/**
 * An approval recorded while the rollout is paused (`rollouts pause`, spec.strategy.paused) is kept,
 * but nothing moves until resume: say so instead of promising the next step.
 */
async function approve(io: CliIO, name: string, flags: CommandFlags): Promise<void> {
  await withApi(io, flags, async ({ client, cluster }) => {
    const key = keyOf(name, flags, cluster);
    const res = await client.command(key, 'approve', flags.commandId ? { commandId: flags.commandId } : {});
    if (res.duplicate) return io.out(`rollout/${name}: approve ${res.commandId} was already recorded; nothing changed\n`);
    const { paused } = await client.status(key);
    if (paused.user) return io.out(`rollout/${name} approved, but it is paused: nothing moves until \`rollouts resume ${name}\`\n`);
    if (paused.spec) return io.out(`rollout/${name} approved, but spec.strategy.paused is true: nothing moves until it is false\n`);
    io.out(`rollout/${name} approved: the release moves on to the next step\n`);
  });
}

export function register(program: Command, io: CliIO): void {
  for (const { verb, description, done } of VERBS) {
    addCommandIdOption(addTargetOptions(program.command(`${verb} <name>`).description(description)))
      .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([[`rollouts ${verb} web`, `${verb} the rollout web in namespace default`]])}`)
      .action((name: string, flags: CommandFlags) => (verb === 'approve' ? approve(io, name, flags) : sendCommand(io, name, flags, verb, {}, done(name))));
  }
}
