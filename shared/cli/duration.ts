// Durations on the command line, as kubectl writes them: 90s, 10m, 1h30m, or plain seconds.
import { InvalidArgumentError } from 'commander';
import { durationMs } from '../rollout/duration.ts';

export { formatDuration } from '../rollout/duration.ts';

/** Milliseconds; throws InvalidArgumentError (a usage error, exit 2) for anything else. */
export function parseDuration(text: string): number {
  const ms = durationMs(text);
  if (ms === null) throw new InvalidArgumentError('must be a duration such as 30s, 10m or 1h30m.');
  if (ms <= 0) throw new InvalidArgumentError('must be longer than 0s.');
  return ms;
}
