// Durations on the command line, as kubectl writes them: 90s, 10m, 1h30m, or plain seconds.
import { InvalidArgumentError } from 'commander';

const PART = /(\d+)(ms|h|m|s)/g;
const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;

/** Milliseconds; throws InvalidArgumentError (a usage error, exit 2) for anything else. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  if (!/^(\d+(ms|h|m|s))+$/.test(t)) throw new InvalidArgumentError('must be a duration such as 30s, 10m or 1h30m.');
  let ms = 0;
  for (const m of t.matchAll(PART)) ms += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms <= 0) throw new InvalidArgumentError('must be longer than 0s.');
  return ms;
}

/** 600000 → "10m", 90000 → "1m30s". */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [h ? `${h}h` : '', m ? `${m}m` : '', s % 60 || s === 0 ? `${s % 60}s` : ''];
  return parts.join('');
}
