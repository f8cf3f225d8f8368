// Help text shared by every command.
import { EXIT } from './io.ts';

export const EXIT_CODES_HELP = `
Exit codes:
  ${EXIT.ok}  success
  ${EXIT.failed}  failure (invalid Rollout, unreadable file, command failed)
  ${EXIT.usage}  usage error (unknown command or option, bad option value)`;

/** An "Examples:" block for `addHelpText('after', …)`; each entry is [command line, what it does]. */
export function examplesHelp(examples: readonly (readonly [string, string])[]): string {
  return `\nExamples:\n${examples.map(([cmd, what]) => `  # ${what}\n  $ ${cmd}`).join('\n')}`;
}
