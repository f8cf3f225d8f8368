// Narrowing of parsed JSON, shared by every layer (the pure core included: no dependencies).

/** A JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
