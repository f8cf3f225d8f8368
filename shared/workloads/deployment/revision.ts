// Revision identity of a pod template. Kubernetes' pod-template-hash (FNV over Go's %#v dump) cannot
// be reproduced outside Go, so we never compute it: we identify a revision by a hash of the template
// as the apiserver stored it (defaults applied), minus the pod-template-hash label. A Deployment's
// template and the template of a ReplicaSet made from it then hash the same, whoever created it.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/objects.ts';
import { isRecord } from '../../json.ts';

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
