// RFC 7386 JSON merge patch that turns `from` into `to` (null removes a key; arrays are replaced).
import { canonicalJson } from './objects.ts';
import { isRecord } from '../../json.ts';

export function mergePatchDiff(from: unknown, to: unknown): unknown {
  if (!isRecord(from) || !isRecord(to)) return canonicalJson(from) === canonicalJson(to) ? undefined : to;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(to)) {
    const sub = mergePatchDiff(from[key], to[key]);
    if (sub !== undefined) patch[key] = sub;
  }
  for (const key of Object.keys(from)) if (!(key in to) && from[key] !== null && from[key] !== undefined) patch[key] = null;
  return Object.keys(patch).length === 0 ? undefined : patch;
}
