// What a CLI command may touch outside itself. Commands receive it from main.ts, so unit tests can run
// them against strings instead of the terminal and the disk.
import { readFile } from 'node:fs/promises';
import { RolloutsError } from '../errors.ts';

export interface CliIO {
  /** Command output (stdout). Text is written as is: add the newline. */
  out(text: string): void;
  /** Diagnostics (stderr). */
  err(text: string): void;
  readFile(path: string): Promise<string>;
}

export const processIO: CliIO = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  readFile: (path) => readFile(path, 'utf8'),
};

/** Exit codes of `rollouts` (also printed in every --help). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * Ends a command with a non-zero exit code. Throw it after printing what went wrong, or give it a
 * message and main.ts prints it to stderr.
 */
export class CliExit extends RolloutsError {
  readonly exitCode: number;
  constructor(exitCode: number, message = '', options?: ErrorOptions) {
    super(message, options);
    this.exitCode = exitCode;
  }
}
