// Path and query parameters: rollout keys and cluster names are checked before they reach the store,
// so a bad one is a 400 naming the parameter rather than a malformed DynamoDB key.
import type { FieldIssue } from '../errors.ts';
import type { RolloutKey } from '../rollout/types.ts';
import { badRequest } from './httpError.ts';

/** Our own name for a registered cluster (not necessarily the EKS name). */
export const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
/** Kubernetes namespace: a DNS-1123 label. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** Kubernetes object name: a DNS-1123 subdomain. */
const OBJECT_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const RULES = {
  cluster: [CLUSTER_NAME, 'must be 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit'],
  namespace: [NAMESPACE, 'must be a DNS-1123 label (lowercase letters, digits and "-", at most 63 characters)'],
  name: [OBJECT_NAME, 'must be a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", at most 253 characters)'],
} as const;

type Part = keyof typeof RULES;

function issue(part: Part, value: string | undefined): FieldIssue | null {
  if (value === undefined || value === '') return { path: part, reason: 'required' };
  const [pattern, reason] = RULES[part];
  return pattern.test(value) ? null : { path: part, reason };
}

function check(values: Partial<Record<Part, string | undefined>>, required: readonly Part[]): void {
  const issues = (Object.keys(values) as Part[])
    .filter((p) => required.includes(p) || values[p] !== undefined)
    .map((p) => issue(p, values[p]))
    .filter((i): i is FieldIssue => i !== null);
  if (issues.length > 0) throw badRequest(issues);
}

export function rolloutKeyParam(params: Record<string, string>): RolloutKey {
  const key = { cluster: params.cluster ?? '', namespace: params.namespace ?? '', name: params.name ?? '' };
  check(key, ['cluster', 'namespace', 'name']);
  return key;
}

export function clusterNameParam(params: Record<string, string>): string {
  check({ cluster: params.name }, ['cluster']);
  return params.name as string;
}

/** `?cluster=&namespace=` of the list; empty values mean "no filter". */
export function listFilter(query: Record<string, string>): { cluster?: string; namespace?: string } {
  const cluster = query.cluster || undefined;
  const namespace = query.namespace || undefined;
  check({ cluster, namespace }, []);
  return { ...(cluster === undefined ? {} : { cluster }), ...(namespace === undefined ? {} : { namespace }) };
}
