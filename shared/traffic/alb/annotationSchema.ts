// The AWS Load Balancer Controller's schema of the action and conditions annotations, ported from its
// Go types and their validate() methods (pkg/ingress/config_types.go of
// kubernetes-sigs/aws-load-balancer-controller): Action, ForwardActionConfig, TargetGroupTuple,
// RuleCondition and their configs. The controller decodes the JSON with Go's encoding/json, which
// matches keys case-insensitively (so Argo's "Type"/"ForwardConfig" read as type/forwardConfig);
// this does the same, then refuses keys that are no field at all (Go would ignore them silently,
// which in our own writes could only be a typo) and checks what the controller's validate() checks,
// plus the ELBv2 API's weight range. Used on every annotation the ALB provider writes.
import * as z from 'zod';
import { isRecord } from '../../json.ts';

const MAX_INT32 = 2_147_483_647;

/** Renames each key to the field it decodes into, as Go's encoding/json does (case-insensitively); others stay as they are. */
function goKeys(fields: readonly string[]) {
  return (value: unknown): unknown => {
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const field = fields.find((f) => f === key) ?? fields.find((f) => f.toLowerCase() === key.toLowerCase()) ?? key;
      out[field] = v;
    }
    return out;
  };
}

/** A Go struct: its JSON keys decoded case-insensitively; a key that is no field is refused. */
function goStruct<S extends z.ZodRawShape>(shape: S) {
  return z.preprocess(goKeys(Object.keys(shape)), z.strictObject(shape));
}

const int32 = z.number().int({ error: 'must be an integer (int32)' }).min(-MAX_INT32 - 1).max(MAX_INT32);
/** A *string decoded from JSON: null is nil. */
const optString = z.string().nullable().optional();
/** intstr.IntOrString: a JSON number or string. */
const intOrString = z.union([z.number().int(), z.string()], { error: 'must be a port number or name' });

const targetGroupTuple = goStruct({
  targetGroupARN: optString,
  targetGroupName: optString,
  serviceName: optString,
  servicePort: intOrString.nullable().optional(),
  // The ELBv2 API: "The weight. The range is 0 to 999."
  weight: int32.min(0, { error: 'must be from 0 to 999 (ELBv2)' }).max(999, { error: 'must be from 0 to 999 (ELBv2)' }).nullable().optional(),
}).superRefine((t, ctx) => {
  const byArn = t.targetGroupARN != null || t.targetGroupName != null;
  if (!byArn && t.serviceName == null) ctx.addIssue({ code: 'custom', message: 'missing serviceName or targetGroupARN/targetGroupName' });
  if (byArn && t.serviceName != null) ctx.addIssue({ code: 'custom', message: 'either serviceName or targetGroupARN/targetGroupName can be specified' });
  if (t.serviceName != null && t.servicePort == null) ctx.addIssue({ code: 'custom', message: 'missing servicePort' });
});

const forwardConfig = goStruct({
  targetGroups: z.array(targetGroupTuple).nullable(),
  targetGroupStickinessConfig: goStruct({ enabled: z.boolean().nullable().optional(), durationSeconds: int32.nullable().optional() }).nullable().optional(),
}).superRefine((c, ctx) => {
  const groups = c.targetGroups ?? [];
  if (groups.length > 1 && groups.some((g) => g.weight == null)) ctx.addIssue({ code: 'custom', message: 'weight must be set when route to multiple target groups' });
});

const statusOnly = (extra: z.ZodRawShape) => goStruct({ statusCode: z.string({ error: 'statusCode is required' }).min(1, { error: 'statusCode is required' }), ...extra });

export const albActionSchema = goStruct({
  type: z.enum(['fixed-response', 'forward', 'redirect'], { error: 'unknown action type' }),
  targetGroupARN: optString,
  targetGroupName: optString,
  fixedResponseConfig: statusOnly({ contentType: optString, messageBody: optString }).nullable().optional(),
  redirectConfig: statusOnly({ host: optString, path: optString, port: optString, protocol: optString, query: optString }).nullable().optional(),
  forwardConfig: forwardConfig.nullable().optional(),
}).superRefine((a, ctx) => {
  const byArn = a.targetGroupARN != null || a.targetGroupName != null;
  if (a.type === 'fixed-response' && a.fixedResponseConfig == null) ctx.addIssue({ code: 'custom', message: 'missing FixedResponseConfig' });
  if (a.type === 'redirect' && a.redirectConfig == null) ctx.addIssue({ code: 'custom', message: 'missing RedirectConfig' });
  if (a.type === 'forward' && !byArn && a.forwardConfig == null) ctx.addIssue({ code: 'custom', message: 'missing ForwardConfig or TargetGroupARN/TargetGroupName' });
  if (a.type === 'forward' && byArn && a.forwardConfig != null) ctx.addIssue({ code: 'custom', message: 'either ForwardConfig or TargetGroupARN/TargetGroupName can be specified' });
});

/** values or regexValues, exactly one of them (HostHeader, HTTPHeader and PathPattern configs). */
function valuesOrRegex<S extends z.ZodRawShape>(extra: S) {
  return goStruct({ regexValues: z.array(z.string()).nullable().optional(), values: z.array(z.string()).nullable().optional(), ...extra }).superRefine((c, ctx) => {
    const fields = c as { values?: string[] | null; regexValues?: string[] | null };
    const values = fields.values ?? [];
    const regex = fields.regexValues ?? [];
    if (values.length === 0 && regex.length === 0) ctx.addIssue({ code: 'custom', message: 'values or regexValues must be specified' });
    if (values.length > 0 && regex.length > 0) ctx.addIssue({ code: 'custom', message: 'precisely one of values and regexValues can be specified' });
  });
}

const nonEmptyValues = goStruct({ values: z.array(z.string()).min(1, { error: 'values cannot be empty' }) });

const CONFIG_OF = {
  'host-header': 'hostHeaderConfig',
  'http-header': 'httpHeaderConfig',
  'http-request-method': 'httpRequestMethodConfig',
  'path-pattern': 'pathPatternConfig',
  'query-string': 'queryStringConfig',
  'source-ip': 'sourceIPConfig',
} as const;

const ruleCondition = goStruct({
  field: z.enum(Object.keys(CONFIG_OF) as [keyof typeof CONFIG_OF, ...(keyof typeof CONFIG_OF)[]], { error: `must be one of ${Object.keys(CONFIG_OF).join(', ')}` }),
  hostHeaderConfig: valuesOrRegex({}).nullable().optional(),
  httpHeaderConfig: valuesOrRegex({ httpHeaderName: z.string() }).nullable().optional(),
  httpRequestMethodConfig: nonEmptyValues.nullable().optional(),
  pathPatternConfig: valuesOrRegex({}).nullable().optional(),
  queryStringConfig: goStruct({
    values: z.array(goStruct({ key: optString, value: z.string().min(1, { error: 'value cannot be empty' }) })).min(1, { error: 'Values cannot be empty' }),
  }).nullable().optional(),
  sourceIPConfig: nonEmptyValues.nullable().optional(),
}).superRefine((c, ctx) => {
  const config = CONFIG_OF[c.field];
  if (c[config] == null) ctx.addIssue({ code: 'custom', message: `missing ${config}` });
});

export const albConditionsSchema = z.array(ruleCondition);

/** Why an annotation value would not load in the controller ("path: reason; …"), or null when it would. */
export function albAnnotationProblem(kind: 'action' | 'conditions', value: string): string | null {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  const result = (kind === 'action' ? albActionSchema : albConditionsSchema).safeParse(json);
  if (result.success) return null;
  return result.error.issues.map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
}
