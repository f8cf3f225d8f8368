// The `rollouts` command: a registry of subcommands. To add a verb, create commands/<verb>.ts that
// exports `register(program, io)` and list it in COMMANDS.
import { Command, CommanderError } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import * as apply from './commands/apply.ts';
import * as clusters from './commands/clusters.ts';
import * as fleet from './commands/fleet.ts';
import * as dashboard from './commands/dashboard.ts';
import * as del from './commands/delete.ts';
import * as get from './commands/get.ts';
import * as history from './commands/history.ts';
import * as list from './commands/list.ts';
import * as plan from './commands/plan.ts';
import * as release from './commands/release.ts';
import * as serve from './commands/serve.ts';
import * as status from './commands/status.ts';
import * as undo from './commands/undo.ts';
import * as validate from './commands/validate.ts';
import * as verbs from './commands/verbs.ts';
import { EXIT_CODES_HELP } from './help.ts';
import { CliExit, EXIT, processIO } from './io.ts';
import type { CliIO } from './io.ts';

interface CommandModule {
  register(program: Command, io: CliIO): void;
}

// In the order `rollouts --help` lists them: run local mode, change things, look at them, offline tools.
const COMMANDS: readonly CommandModule[] = [serve, apply, release, verbs, undo, del, get, status, history, list, clusters, fleet, dashboard, plan, validate];

export function buildProgram(io: CliIO = processIO): Command {
  const program = new Command('rollouts')
    .description('progressive multi-batch releases for Kubernetes workloads (serverless-rollouts)')
    .version(pkg.version)
    // Settings made before the subcommands are added are inherited by them.
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('afterAll', EXIT_CODES_HELP);
  for (const command of COMMANDS) command.register(program, io);
  for (const command of program.commands) unknownOptionsFirst(command);
  return program;
}

/**
 * Commander checks required options before unknown ones, so `release web --imgae app=x` said that
 * --image is missing. Required options are checked here after it, just before the action, so a
 * mistyped option is named as unknown (with commander's "Did you mean --image?").
 */
function unknownOptionsFirst(command: Command): void {
  const required = command.options.filter((o) => o.mandatory);
  for (const option of required) option.mandatory = false;
  if (required.length === 0) return;
  command.hook('preAction', (cmd) => {
    const missing = required.find((o) => cmd.getOptionValue(o.attributeName()) === undefined);
    if (missing) cmd.error(`error: required option '${missing.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue', exitCode: EXIT.usage });
  });
}

/**
 * The first word when it names no command (`rollouts fleet --help`): commander would print the
 * top-level help and exit 0 for it, as if the command existed.
 */
function unknownCommand(program: Command, argv: readonly string[]): string | null {
  const first = argv[0];
  if (first === undefined || first.startsWith('-') || first === 'help') return null;
  return program.commands.some((c) => c.name() === first || c.aliases().includes(first)) ? null : first;
}

/** Commander's own outcomes: help and version are successes, everything else is a usage error. */
function commanderExitCode(err: CommanderError): number {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
  if (err.code === 'commander.help' && err.exitCode === 0) return EXIT.ok;
  return EXIT.usage;
}

/** Runs `rollouts <argv…>` and returns the exit code; never calls process.exit. */
export async function run(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  try {
    const program = buildProgram(io);
    const unknown = unknownCommand(program, argv);
    if (unknown !== null) program.error(`error: unknown command '${unknown}'`, { code: 'commander.unknownCommand', exitCode: EXIT.usage });
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) return commanderExitCode(err);
    if (err instanceof CliExit) {
      if (err.message) io.err(`${err.message}\n`);
      return err.exitCode;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  }
}
