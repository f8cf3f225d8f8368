// Durations as Kubernetes and Argo users write them: 90s, 10m, 1h30m, 500ms, or plain seconds.
// Pure: the Rollout schema and the CLI both read durations with it.

const PART = /(\d+)(ms|h|m|s)/g;
const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
const SHAPE = /^(\d+(ms|h|m|s))+$/;

/** Milliseconds, or null when `text` is not a duration ("0s" is one: callers decide whether zero is allowed). */
export function durationMs(text: string): number | null {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  if (!SHAPE.test(t)) return null;
  let ms = 0;
  for (const m of t.matchAll(PART)) ms += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
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
