// Cluster labels and the label selectors that pick clusters, with Kubernetes' exact rules: a label
// key is an optional DNS-1123 subdomain prefix and "/" then a name of at most 63 characters
// (alphanumerics, "-", "_", "." inside, alphanumeric at both ends); a value is empty or a name; a
// selector's matchLabels and matchExpressions all have to hold (apimachinery's
// LabelSelectorAsSelector), an empty selector selects every cluster. Pure: validation and matching.
import * as z from 'zod';

export type Labels = Record<string, string>;

export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

export interface SelectorRequirement {
  key: string;
  operator: SelectorOperator;
  /** In and NotIn: at least one value; Exists and DoesNotExist: none. */
  values: string[];
}

/** A Kubernetes LabelSelector, normalised: absent lists are empty. */
export interface LabelSelector {
  matchLabels: Labels;
  matchExpressions: SelectorRequirement[];
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME = 63;
const MAX_PREFIX = 253;
const NAME_RULE = 'alphanumeric characters, "-", "_" or ".", starting and ending with an alphanumeric character';

/** Why `key` is not a Kubernetes label key, or null. */
export function labelKeyProblem(key: string): string | null {
  const parts = key.split('/');
  if (parts.length > 2) return 'a label key has at most one "/" (prefix/name)';
  const [prefix, name] = parts.length === 2 ? parts as [string, string] : [null, parts[0] as string];
  if (prefix !== null) {
    if (prefix.length === 0) return 'the prefix before "/" must not be empty';
    if (prefix.length > MAX_PREFIX || !DNS1123_SUBDOMAIN.test(prefix)) {
      return `the prefix must be a DNS-1123 subdomain (lowercase letters, digits, "-" and "."), at most ${MAX_PREFIX} characters`;
    }
  }
  if (name.length === 0) return 'the name part must not be empty';
  if (name.length > MAX_NAME) return `the name part must be at most ${MAX_NAME} characters`;
  if (!NAME.test(name)) return `the name part must consist of ${NAME_RULE}`;
  return null;
}

/** Why `value` is not a Kubernetes label value, or null (the empty value is valid). */
export function labelValueProblem(value: string): string | null {
  if (value === '') return null;
  if (value.length > MAX_NAME) return `must be at most ${MAX_NAME} characters`;
  if (!NAME.test(value)) return `must be empty or consist of ${NAME_RULE}`;
  return null;
}

/** A label map: every key and value checked, each problem at its own path (`labels["ring"]`). */
export const labelsSchema = z.record(z.string(), z.string()).superRefine((labels, ctx) => {
  for (const [key, value] of Object.entries(labels)) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) ctx.addIssue({ code: 'custom', message: `invalid label key: ${keyProblem}`, path: [key], input: key });
    const valueProblem = labelValueProblem(value);
    if (valueProblem) ctx.addIssue({ code: 'custom', message: `invalid label value: ${valueProblem}`, path: [key], input: value });
  }
});

const requirement = z.strictObject({
  key: z.string().superRefine((k, ctx) => {
    const problem = labelKeyProblem(k);
    if (problem) ctx.addIssue({ code: 'custom', message: `invalid label key: ${problem}`, input: k });
  }),
  operator: z.enum(SELECTOR_OPERATORS),
  values: z.array(z.string().superRefine((v, ctx) => {
    const problem = labelValueProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: `invalid label value: ${problem}`, input: v });
  })).optional(),
}).superRefine((r, ctx) => {
  const count = r.values?.length ?? 0;
  if ((r.operator === 'In' || r.operator === 'NotIn') && count === 0) {
    ctx.addIssue({ code: 'custom', message: `must list at least one value for operator ${r.operator}`, path: ['values'], input: r.values });
  }
  if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && count > 0) {
    ctx.addIssue({ code: 'custom', message: `must be empty for operator ${r.operator}`, path: ['values'], input: r.values });
  }
});

/** A LabelSelector document (matchLabels and/or matchExpressions). */
export const selectorSchema = z.strictObject({
  matchLabels: labelsSchema.optional(),
  matchExpressions: z.array(requirement).optional(),
});
export type SelectorDoc = z.output<typeof selectorSchema>;

export function toSelector(doc: SelectorDoc): LabelSelector {
  return {
    matchLabels: { ...doc.matchLabels },
    matchExpressions: (doc.matchExpressions ?? []).map((r) => ({ key: r.key, operator: r.operator, values: [...(r.values ?? [])] })),
  };
}

/** True when the labels satisfy every requirement (an empty selector selects everything). */
export function selects(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels)) if (labels[key] !== value) return false;
  return selector.matchExpressions.every((r) => holds(r, labels));
}

function holds(r: SelectorRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && r.values.includes(labels[r.key] as string);
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key] as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/** "ring=canary, region in (eu-west-1,eu-west-2), !legacy", or "every cluster" for the empty selector. */
export function describeSelector(selector: LabelSelector): string {
  const parts = [
    ...Object.entries(selector.matchLabels).map(([k, v]) => `${k}=${v}`),
    ...selector.matchExpressions.map((r) => {
      switch (r.operator) {
        case 'In': return `${r.key} in (${r.values.join(',')})`;
        case 'NotIn': return `${r.key} notin (${r.values.join(',')})`;
        case 'Exists': return r.key;
        case 'DoesNotExist': return `!${r.key}`;
      }
    }),
  ];
  return parts.length === 0 ? 'every cluster' : parts.join(', ');
}

/** The same requirements written in any order: two such selectors always select the same clusters. */
export function sameSelector(a: LabelSelector, b: LabelSelector): boolean {
  return canonical(a) === canonical(b);
}

function canonical(s: LabelSelector): string {
  const reqs = [
    ...Object.entries(s.matchLabels).map(([key, v]) => `${key} In ${v}`),
    ...s.matchExpressions.map((r) => `${r.key} ${r.operator} ${[...new Set(r.values)].sort().join(',')}`),
  ];
  return [...new Set(reqs)].sort().join(';');
}

/** "ring=canary,region=eu-west-1": a cluster's labels on one line. */
export function describeLabels(labels: Labels): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? 'no labels' : entries.map(([k, v]) => `${k}=${v}`).join(',');
}
