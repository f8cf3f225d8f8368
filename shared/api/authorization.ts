// Who may do what where, for the deployed API (IAM authenticates; this authorizes). A policy is a
// list of rules, each granting verbs to principals (IAM ARNs as the Function URL reports them, e.g.
// arn:aws:sts::123456789012:assumed-role/Deployer/ci-42, with "*" wildcards) on clusters and
// namespaces (names, with "*" wildcards). A request is allowed when one rule matches its principal,
// verb, cluster and namespace; otherwise 403, before anything is read or written. Optional
// four-eyes: nobody approves a release they requested themselves. No policy configured: every
// IAM-authorized caller may do everything (the lambda:InvokeFunctionUrl grant is then the only gate).
// Validated once at cold start (shared/app/config.ts) and at synth (infra/parameters.ts).
import * as z from 'zod';

export const API_VERBS = ['read', 'apply', 'delete', 'release', 'approve', 'pause', 'resume', 'abort', 'retry', 'undo', 'registerCluster', 'deregisterCluster'] as const;
export type ApiVerb = (typeof API_VERBS)[number];

const pattern = z.string().min(1).max(2048).regex(/^[^\s]+$/, { error: 'must not contain spaces' });

const rule = z.strictObject({
  principals: z.array(pattern.regex(/^(arn:aws[a-z-]*:(iam|sts)::(\d{12}|\*):|\*$)/, { error: 'must be an IAM or STS ARN (or pattern), e.g. arn:aws:iam::123456789012:role/Deployer' })).min(1),
  verbs: z.array(z.enum([...API_VERBS, '*'])).min(1),
  /** Cluster names or patterns; default every cluster. */
  clusters: z.array(pattern).min(1).default(['*']),
  /** Namespace names or patterns; default every namespace. */
  namespaces: z.array(pattern).min(1).default(['*']),
});

export const authorizationSchema = z.strictObject({
  rules: z.array(rule).min(1),
  /** The approver of a step must not be the principal that requested the release. */
  fourEyes: z.boolean().default(false),
});

export type AuthorizationPolicy = z.infer<typeof authorizationSchema>;

export interface Scope {
  cluster?: string;
  namespace?: string;
}

/** Why `principal` may not `verb` in `scope`, or null when a rule allows it. */
export function denial(policy: AuthorizationPolicy | undefined, principal: string, verb: ApiVerb, scope: Scope): string | null {
  if (!policy) return null;
  const allowed = policy.rules.some((r) =>
    r.principals.some((p) => matches(p, principal)) &&
    (r.verbs.includes('*') || r.verbs.includes(verb)) &&
    (scope.cluster === undefined || r.clusters.some((c) => matches(c, scope.cluster as string))) &&
    (scope.namespace === undefined || r.namespaces.some((n) => matches(n, scope.namespace as string))));
  if (allowed) return null;
  const where = [scope.cluster && `cluster "${scope.cluster}"`, scope.namespace && `namespace "${scope.namespace}"`].filter(Boolean).join(', ');
  return `${principal} may not ${verb}${where ? ` in ${where}` : ''} (no rule of the API authorization policy allows it)`;
}

/** "*" matches any run of characters; everything else literally. */
export function matches(patternText: string, value: string): boolean {
  const re = new RegExp(`^${patternText.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&')).join('.*')}$`);
  return re.test(value);
}

/** Parses the policy (JSON text) or says what is wrong with it, naming the field. */
export function parseAuthorization(json: string): { policy: AuthorizationPolicy } | { problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    return { problems: [`not JSON: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const parsed = authorizationSchema.safeParse(raw);
  if (parsed.success) return { policy: parsed.data };
  return { problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(policy)'}: ${i.message}`) };
}
