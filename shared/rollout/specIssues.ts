// Turns zod issues into FieldIssues with document paths ("spec.strategy.canary.steps[1].replicas")
// and reasons a Rollout author understands, including "not supported" for Kruise features we lack.
import type { z } from 'zod';
import type { FieldIssue } from '../errors.ts';

/** Path segments as zod reports them. */
export type PathSegments = readonly PropertyKey[];

/** `["spec","steps",1,"replicas"]` → `spec.steps[1].replicas`; odd keys are quoted (`annotations["a/b"]`). */
export function formatPath(path: PathSegments): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out === '' ? '(document)' : out;
}

/** Kruise fields we deliberately do not implement, by path with indexes erased, → what they are. */
const UNSUPPORTED_KRUISE_FIELDS: Record<string, string> = {
  'spec.strategy.canary.trafficRoutingRef': 'TrafficRouting objects (end-to-end canaries), trafficRoutingRef',
  'spec.strategy.blueGreen.trafficRoutingRef': 'TrafficRouting objects (end-to-end canaries), trafficRoutingRef',
  'spec.strategy.canary.disableGenerateCanaryService': 'routing without a canary Service, disableGenerateCanaryService',
  'spec.strategy.blueGreen.disableGenerateCanaryService': 'routing without a canary Service, disableGenerateCanaryService',
  'spec.strategy.canary.trafficRoutings[].customNetworkRefs': 'custom network providers driven by Lua (Istio, APISIX...), customNetworkRefs',
  'spec.strategy.blueGreen.trafficRoutings[].customNetworkRefs': 'custom network providers driven by Lua (Istio, APISIX...), customNetworkRefs',
};

/** Our extensions under `spec`; named in the error when someone uses them in a Kruise document. */
export const EXTENSION_FIELDS = ['progressDeadlineSeconds', 'rollbackOnFailure', 'releaseWindows', 'startAt', 'deploymentStrategy', 'onDeletePolicy', 'lifecycle', 'podUpdateTimeout'] as const;

/** Our extensions inside Kruise structures, by path with indexes erased. */
const NESTED_EXTENSION_FIELDS = ['spec.strategy.canary.steps[].gates', 'spec.strategy.blueGreen.steps[].gates', 'spec.strategy.blueGreen.scaleDownDelaySeconds'];

export function unsupported(feature: string): string {
  return `not supported by serverless-rollouts (Kruise ${feature}); remove it`;
}

function unknownKeyReason(parent: PathSegments, key: string, ourApiVersion: string): string {
  const generic = formatPath([...parent, key]).replace(/\[\d+\]/g, '[]');
  const feature = UNSUPPORTED_KRUISE_FIELDS[generic];
  if (feature) return unsupported(feature);
  if (generic === 'status') return 'unknown field (status is written by the controller; remove it)';
  // Only a blue-green release keeps an old revision at full size to scale down later (shared/rollout/blueGreen.ts).
  if (generic === 'spec.strategy.canary.scaleDownDelaySeconds') return 'only blue-green releases scale the old revision down after a delay: it belongs under spec.strategy.blueGreen';
  if ((parent.length === 1 && parent[0] === 'spec' && (EXTENSION_FIELDS as readonly string[]).includes(key)) || NESTED_EXTENSION_FIELDS.includes(generic)) {
    return `not a Kruise field: it is a serverless-rollouts extension, use apiVersion ${ourApiVersion}`;
  }
  return 'unknown field';
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v)}`;
  return `${typeof v} ${String(v)}`;
}

const EXPECTED_NAMES: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  record: 'a mapping',
  boolean: 'true or false',
  number: 'a number',
  int: 'an integer',
};

/** "required", or "must be a list, not the string \"x\"" (the issue must carry its input: `reportInput: true`). */
export function invalidTypeReason(issue: z.core.$ZodIssueInvalidType): string {
  if (!('input' in issue) || issue.input === undefined) return 'required';
  return `must be ${EXPECTED_NAMES[issue.expected] ?? issue.expected}, not ${describeValue(issue.input)}`;
}

/** One zod issue → one or more FieldIssues (one per unknown key). Requires `reportInput: true`. */
export function toFieldIssues(issue: z.core.$ZodIssue, ourApiVersion: string): FieldIssue[] {
  const path = formatPath(issue.path);
  const missing = !('input' in issue) || issue.input === undefined;
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: formatPath([...issue.path, key]),
        reason: unknownKeyReason(issue.path, key, ourApiVersion),
      }));
    case 'invalid_type':
      return [{ path, reason: invalidTypeReason(issue) }];
    case 'invalid_value':
      if (missing) return [{ path, reason: 'required' }];
      if (issue.values.length === 1) return [{ path, reason: `must be ${JSON.stringify(issue.values[0])}` }];
      return [{ path, reason: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` }];
    default:
      // Every other check in specSchema.ts carries its own message written for users.
      return [{ path, reason: missing ? 'required' : issue.message }];
  }
}
