// Revision identity of a pod template. Kubernetes' pod-template-hash (FNV over Go's %#v dump) cannot
// be reproduced outside Go, so we never compute it: we identify a revision by a hash of the template
// as the apiserver stored it (defaults applied), minus the pod-template-hash label. A Deployment's
// template and the template of a ReplicaSet made from it then hash the same, whoever created it.
import { createHash } from 'node:crypto';

export const POD_TEMPLATE_HASH = 'pod-template-hash';
/** The alphabet Kubernetes uses for generated names (rand.SafeEncodeString): no vowels, no 0/1/3. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function revisionId(template: unknown): string {
  const digest = createHash('sha256').update(canonicalJson(withoutHashLabel(template))).digest();
  let out = '';
  for (let i = 0; i < 10; i += 1) out += SAFE_ALPHABET[digest[i]! % SAFE_ALPHABET.length];
  return out;
}

export function withoutHashLabel(template: unknown): unknown {
  if (!isRecord(template)) return template;
  const meta = isRecord(template.metadata) ? { ...template.metadata } : undefined;
  if (meta && isRecord(meta.labels)) {
    const labels: Record<string, unknown> = { ...meta.labels };
    delete labels[POD_TEMPLATE_HASH];
    meta.labels = labels;
  }
  return meta ? { ...template, metadata: meta } : template;
}

/** JSON with sorted keys and without nulls/empty maps, so equal templates serialise equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = normalise(value[key]);
    if (v === null || v === undefined) continue;
    if (isRecord(v) && Object.keys(v).length === 0) continue;
    out[key] = v;
  }
  return out;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
