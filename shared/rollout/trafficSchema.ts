// zod schemas of Kruise v1beta1's traffic fields, one field at a time, with the limits of Kruise's CRD
// (config/crd/bases/rollouts.kruise.io_rollouts.yaml of openkruise/rollouts, which embeds Gateway API
// v1beta1's HTTPHeaderMatch, HTTPQueryParamMatch, HTTPPathMatch and HTTPHeaderFilter) and its
// webhook's single-field rules (pkg/webhook/rollout/validating/rollout_create_update_handler.go:
// validateRolloutSpecCanaryTraffic). Rules that compare fields (traffic per rolling style, the
// partition limit, one provider) are in trafficRules.ts; specSchema.ts composes both.
import * as z from 'zod';
import { percentSpellingProblem } from './intOrPercent.ts';
import { INGRESS_CLASS_TYPES } from './trafficTypes.ts';

const MAX_INT32 = 2_147_483_647;
/** Gateway API's HTTPHeaderName (RFC 7230 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** `<service>-canary` must still be a Service name (63 characters). */
export const CANARY_SUFFIX = '-canary';
const MAX_SERVICE_NAME = 63 - CANARY_SUFFIX.length;
/** Gateway API's characters for Exact and PathPrefix paths. */
const PATH_CHARACTERS = /^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+$/;

function issue(ctx: z.RefinementCtx, message: string, input: unknown): void {
  ctx.addIssue({ code: 'custom', message, input });
}

const headerName = z.string().refine((s) => s.length >= 1 && s.length <= 256 && HEADER_NAME.test(s), {
  error: 'must be an HTTP header name (letters, digits and !#$%&\'*+-.^_`|~), 1 to 256 characters',
});

function nonEmpty(max: number) {
  return z.string().min(1, { error: 'must not be empty' }).max(max, { error: `must be at most ${max} characters` });
}

/** A list whose entries are keyed by `name` (the CRD's list-map), compared case-insensitively for headers. */
function namedList<T extends z.ZodType<{ name: string }>>(item: T, what: string, caseInsensitive: boolean) {
  return z.array(item).max(16, { error: `at most 16 ${what} (Kruise limit)` }).superRefine((list, ctx) => {
    const seen = new Set<string>();
    for (const [i, entry] of list.entries()) {
      const key = caseInsensitive ? entry.name.toLowerCase() : entry.name;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${JSON.stringify(entry.name)} is listed twice`, input: entry.name });
      seen.add(key);
    }
  });
}

const matchType = z.enum(['Exact', 'RegularExpression'], { error: 'must be "Exact" or "RegularExpression"' }).default('Exact');
const headerMatch = z.strictObject({ type: matchType, name: headerName, value: nonEmpty(4096) });
const queryParamMatch = z.strictObject({
  type: matchType,
  name: z.string().min(1, { error: 'must not be empty' }).max(256, { error: 'must be at most 256 characters' }),
  value: nonEmpty(1024),
});

/** Gateway API HTTPPathMatch, with the CRD's CEL rules for Exact and PathPrefix. */
const pathMatch = z.strictObject({
  type: z.enum(['Exact', 'PathPrefix', 'RegularExpression'], { error: 'must be "Exact", "PathPrefix" or "RegularExpression"' }).default('PathPrefix'),
  value: z.string().max(1024, { error: 'must be at most 1024 characters' }).default('/'),
}).superRefine((p, ctx) => {
  if (p.type === 'RegularExpression') return;
  const problem = !p.value.startsWith('/') ? `must be an absolute path starting with "/" for type ${p.type}`
    : ['//', '/./', '/../', '%2f', '%2F', '#'].find((bad) => p.value.includes(bad)) !== undefined ? `must not contain "//", "/./", "/../", "%2f" or "#" for type ${p.type}`
    : p.value.endsWith('/..') || p.value.endsWith('/.') ? `must not end with "/." or "/.." for type ${p.type}`
    : !PATH_CHARACTERS.test(p.value) ? `must contain only URL path characters (or %XX escapes) for type ${p.type}`
    : null;
  if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem, input: p.value });
});

const routeMatch = z.strictObject({
  path: pathMatch.optional(),
  headers: namedList(headerMatch, 'headers', true).optional(),
  queryParams: namedList(queryParamMatch, 'query parameters', false).optional(),
}).refine((m) => m.path !== undefined || (m.headers?.length ?? 0) > 0 || (m.queryParams?.length ?? 0) > 0, {
  error: 'must set path, headers or queryParams: an empty match would send every request to the canary',
});

const headerValue = z.strictObject({ name: headerName, value: nonEmpty(4096) });

/** Gateway API HTTPHeaderFilter. */
const requestHeaderModifier = z.strictObject({
  set: namedList(headerValue, 'headers', true).optional(),
  add: namedList(headerValue, 'headers', true).optional(),
  remove: z.array(headerName).max(16, { error: 'at most 16 headers (Kruise limit)' }).optional(),
});

/** `steps[].traffic`: a percent string; whether 0% is allowed depends on the style (trafficRules.ts). */
const traffic = z.string({ error: 'must be a percent string such as "20%"' }).superRefine((v, ctx) => {
  const problem = percentSpellingProblem(v);
  if (problem) return issue(ctx, problem.replace('an integer or a percent string', 'a percent string'), v);
});

/** The traffic fields of a step (Kruise's inlined TrafficRoutingStrategy). */
export const stepTrafficFields = {
  traffic: traffic.nullable().optional(),
  matches: z.array(routeMatch).max(16, { error: 'at most 16 matches (Kruise limit)' }).optional(),
  requestHeaderModifier: requestHeaderModifier.nullable().optional(),
};

const dnsSubdomain = z.string().refine((s) => s.length <= 253 && DNS1123_SUBDOMAIN.test(s), {
  error: 'must be the name of an object in the Rollout\'s namespace (a DNS-1123 subdomain)',
});

const serviceName = z.string().refine((s) => s.length <= MAX_SERVICE_NAME && DNS1123_LABEL.test(s), {
  error: `must be a Service name (a DNS-1123 label) of at most ${MAX_SERVICE_NAME} characters, so that "<service>${CANARY_SUFFIX}" is one too`,
});

const ingress = z.strictObject({
  // Kruise's default; its other Lua scripts (aliyun-alb, mse, higress) are other clouds' gateways.
  classType: z.string().default('nginx').superRefine((v, ctx) => {
    if (!(INGRESS_CLASS_TYPES as readonly string[]).includes(v)) {
      issue(ctx, `${JSON.stringify(v)} is not supported by serverless-rollouts; use one of ${INGRESS_CLASS_TYPES.map((t) => JSON.stringify(t)).join(', ')}`, v);
    }
  }),
  name: dnsSubdomain,
});

const gateway = z.strictObject({ httpRouteName: dnsSubdomain });

const trafficRouting = z.strictObject({
  service: serviceName,
  gracePeriodSeconds: z
    .number()
    .int({ error: 'must be a whole number of seconds' })
    .min(0, { error: 'must not be negative' })
    .max(MAX_INT32, { error: `must be <= ${MAX_INT32}` })
    .default(3),
  ingress: ingress.optional(),
  gateway: gateway.optional(),
}).superRefine((r, ctx) => {
  if (r.ingress === undefined && r.gateway === undefined) issue(ctx, 'must set ingress or gateway: the router whose weights the release sets', r);
  if (r.ingress !== undefined && r.gateway !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['gateway'], message: 'set ingress or gateway, not both: serverless-rollouts drives one router per Rollout', input: r.gateway });
  }
});

export const trafficRoutings = z
  .array(trafficRouting)
  .min(1, { error: 'list one trafficRouting, or leave the field out' })
  .max(1, { error: 'Kruise supports a single trafficRouting' });

export const patchPodTemplateMetadata = z.strictObject({
  labels: z.record(z.string(), z.string({ error: 'must be a string' })).optional(),
  annotations: z.record(z.string(), z.string({ error: 'must be a string' })).optional(),
});

export type TrafficRoutingDoc = z.output<typeof trafficRouting>;
export type RouteMatchDoc = z.output<typeof routeMatch>;
export type HeaderModifierDoc = z.output<typeof requestHeaderModifier>;
