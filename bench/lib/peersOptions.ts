// Options of the `peers` area on the `npm run bench` command line, checked before anything starts:
//   --reps N             releases per contender and size (default 5)
//   --replicas A,B,...   Deployment sizes (default 10,100)
// e.g. `npm run bench -- --only peers --reps 1 --replicas 10` (a quick look; the figures worth
// quoting come from the default run on an idle machine).
import { ConfigError } from '../../shared/errors.ts';

export interface PeersOptions {
  reps: number;
  replicas: number[];
}

export const DEFAULT_PEERS_OPTIONS: PeersOptions = { reps: 5, replicas: [10, 100] };
export const PEERS_FLAGS = ['--reps', '--replicas'] as const;

/** The value of `--flag value` or `--flag=value`, or undefined when the flag is absent. */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  const i = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  const arg = args[i] as string;
  const value = arg.includes('=') ? arg.slice(flag.length + 1) : args[i + 1];
  if (value === undefined || value === '' || value.startsWith('--')) throw new ConfigError(`${flag} needs a value`);
  return value;
}

export function parsePeersOptions(args: readonly string[]): PeersOptions {
  const reps = flagValue(args, '--reps');
  const replicas = flagValue(args, '--replicas');
  return {
    reps: reps === undefined ? DEFAULT_PEERS_OPTIONS.reps : positiveInteger('--reps', reps, 1000),
    replicas: replicas === undefined ? DEFAULT_PEERS_OPTIONS.replicas : [...new Set(replicas.split(',').map((x) => positiveInteger('--replicas', x.trim(), 1000)))],
  };
}

function positiveInteger(flag: string, text: string, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1 || n > max) throw new ConfigError(`${flag}: '${text}' is not a whole number from 1 to ${max}`);
  return n;
}
