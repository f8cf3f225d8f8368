// Deploy parameters, read from CDK context (cdk.json defaults, `-c key=value` overrides) and
// validated once, so a typo fails `cdk synth` with the key and the reason instead of a bad deploy.
import * as z from 'zod';
import type { Node } from 'constructs';
import { parseAuthorization, type AuthorizationPolicy } from '../shared/api/authorization.ts';
import { DEFAULT_RESYNC_PERIOD_SECONDS } from '../shared/app/config.ts';
import { ConfigError } from '../shared/errors.ts';

const clusterSchema = z.object({
  /** The name the cluster is registered under in serverless-rollouts (the `<cluster>` of a rollout key). */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, ".", "_" or "-" (no "#" or "/"), at most 63'),
  /** The EKS cluster's own name (an EKS cluster) … */
  eksClusterName: z.string().regex(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, 'an EKS cluster name').optional(),
  /**
   * … or the Secrets Manager secret holding the bearer token of a cluster registered by endpoint
   * (any Kubernetes). The full ARN, with its random suffix: the functions may read exactly this secret.
   */
  tokenSecretArn: z.string().regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/, 'the full ARN of a Secrets Manager secret (ending in its 6-character suffix)').optional(),
  /** EKS only. @default the stack's region */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as eu-west-1').optional(),
  /**
   * A role (typically in the cluster's account) the functions assume to reach the cluster: for
   * DescribeCluster and the EKS token, or to read tokenSecretArn (which then lives in that account).
   */
  roleArn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'an IAM role ARN').optional(),
  /** Namespaces the controller manages; only shapes the RBAC instructions (RoleBindings instead of a ClusterRoleBinding). */
  namespaces: z.array(z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a namespace name')).min(1).optional(),
}).strict().superRefine((c, ctx) => {
  if ((c.eksClusterName === undefined) === (c.tokenSecretArn === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['eksClusterName'], message: 'exactly one of eksClusterName (EKS) or tokenSecretArn (a cluster registered by endpoint) must be set' });
  }
  if (c.tokenSecretArn !== undefined && c.region !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['region'], message: 'is for EKS clusters; the secret is read in the region its ARN names' });
  }
});

export type ClusterParameter = z.infer<typeof clusterSchema>;

const ipv4Cidr = z.string().regex(/^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/, 'an IPv4 CIDR such as 10.0.0.0/8');

/** The reconcile function inside your VPC (to reach hook and gate targets and private apiservers). */
const vpcSchema = z.object({
  vpcId: z.string().regex(/^vpc-[0-9a-f]{8,17}$/, 'a VPC id such as vpc-0123456789abcdef0'),
  /** Private subnets, each with its Availability Zone (no lookup at synth). */
  subnets: z.array(z.object({
    subnetId: z.string().regex(/^subnet-[0-9a-f]{8,17}$/, 'a subnet id such as subnet-0123456789abcdef0'),
    availabilityZone: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, 'an Availability Zone such as eu-west-1a'),
    /** Its route table, for the DynamoDB gateway endpoint (needed when `endpoints` is true). */
    routeTableId: z.string().regex(/^rtb-[0-9a-f]{8,17}$/, 'a route table id such as rtb-0123456789abcdef0').optional(),
  }).strict()).min(1),
  /** Outbound beyond HTTPS (443, always allowed): hook and gate targets on other ports. */
  egress: z.array(z.object({ cidr: ipv4Cidr, port: z.number().int().min(1).max(65535) }).strict()).default([]),
  /** Interface endpoints for every AWS API the reconcile calls; false when the subnets already reach them (NAT, shared endpoints). */
  endpoints: z.boolean().default(true),
}).strict().superRefine((v, ctx) => {
  v.subnets.forEach((s, i) => {
    if (v.endpoints && s.routeTableId === undefined) ctx.addIssue({ code: 'custom', path: ['subnets', i, 'routeTableId'], message: 'required with endpoints: the DynamoDB gateway endpoint is added to each subnet\'s route table' });
  });
});

export type VpcParameter = z.infer<typeof vpcSchema>;

const LAMBDA_FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[a-zA-Z0-9_-]{1,64}$/;
const ALARM_ARN = /^arn:aws[a-z-]*:cloudwatch:[a-z0-9-]+:\d{12}:alarm:[^*]+\*?$/;
const WORKSPACE_ARN = /^arn:aws[a-z-]*:aps:[a-z0-9-]+:\d{12}:workspace\/ws-[0-9a-zA-Z-]+$/;

/** What hooks and gates may call: the reconcile role gets exactly these, nothing when empty. */
const checksSchema = z.object({
  /** Functions lambda hooks and gates invoke (any version or alias of each). */
  lambdaFunctions: z.array(z.string().regex(LAMBDA_FUNCTION_ARN, 'a Lambda function ARN without qualifier')).default([]),
  /** Alarms cloudwatchAlarm gates read; an ARN may end with "*" to cover a name prefix. */
  cloudwatchAlarms: z.array(z.string().regex(ALARM_ARN, 'a CloudWatch alarm ARN (arn:aws:cloudwatch:<region>:<account>:alarm:<name>, a trailing * for a prefix)')).default([]),
  /** Amazon Managed Prometheus workspaces prometheus gates query with SigV4. */
  prometheusWorkspaces: z.array(z.string().regex(WORKSPACE_ARN, 'an AMP workspace ARN (arn:aws:aps:<region>:<account>:workspace/ws-…)')).default([]),
}).strict();

export type ChecksParameter = z.infer<typeof checksSchema>;

export const WATCH_PROXY_MODES = ['on-demand', 'always', 'none'] as const;
export type WatchProxyMode = (typeof WATCH_PROXY_MODES)[number];

const schema = z.object({
  clusters: z.array(clusterSchema).refine(
    (list) => new Set(list.map((c) => c.name)).size === list.length,
    'cluster names must be unique',
  ),
  watchProxyMode: z.enum(WATCH_PROXY_MODES),
  alarmEmail: z.email().optional(),
  notifications: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean()),
  notificationEmail: z.email().optional(),
  reconcileConcurrency: z.coerce.number().int().min(2).max(1000),
  // At least the sweep's one-minute rate (shared/app/config.ts checks the same at cold start).
  resyncPeriodSeconds: z.coerce.number().int().min(60).max(86_400),
  vpc: vpcSchema.optional(),
  checks: checksSchema,
});

export interface DeployParameters {
  readonly clusters: readonly ClusterParameter[];
  /**
   * `on-demand` (default): the watch-proxy runs only while some release is moving pods, started by
   * the reconcile (shared/watch/watcherDemand.ts); `always`: it runs all the time on an overlapping
   * schedule; `none`: no watches, the re-runs, the sweep and the resync drive progress.
   */
  readonly watchProxyMode: WatchProxyMode;
  /** Where alarm notifications go; no subscription when absent (the alarms still exist). */
  readonly alarmEmail?: string;
  /**
   * Route approvals needed and failures (shared/rollout/events.ts NOTIFY_EVENTS) to an SNS topic
   * (infra/constructs/RolloutNotifications.ts). Implied by notificationEmail.
   * @default false
   */
  readonly notifications: boolean;
  /** Subscribed (after you confirm) to the notification topic. */
  readonly notificationEmail?: string;
  /**
   * Most reconcile invocations at once, per queue (the workers of the workqueue). Also bounds the
   * load on each cluster's apiserver.
   * @default 10
   */
  readonly reconcileConcurrency: number;
  /**
   * Every managed rollout, Healthy ones included, is reconciled at least this often, so a missed
   * watch event costs latency, never a release (ROLLOUTS_RESYNC_PERIOD_SECONDS).
   * @default 300
   */
  readonly resyncPeriodSeconds: number;
  /**
   * Who may use which API verbs on which clusters and namespaces, and the four-eyes rule
   * (shared/api/authorization.ts); passed to the API function as ROLLOUTS_API_AUTHORIZATION.
   * @default none: every caller with lambda:InvokeFunctionUrl may do everything
   */
  readonly apiAuthorization?: AuthorizationPolicy;
  /**
   * Run the reconcile function in these private subnets, with its own security group (HTTPS out,
   * plus `egress`) and, unless `endpoints: false`, interface endpoints for the AWS APIs it calls
   * (infra/constructs/ReconcileNetwork.ts): for http hooks and gates on private addresses.
   * @default none: the function runs outside any VPC
   */
  readonly vpc?: VpcParameter;
  /** What lambda hooks and gates, cloudwatchAlarm gates and AMP prometheus gates may call. @default nothing */
  readonly checks: ChecksParameter;
}

/** A deploy parameter (cdk.json context) that cannot be deployed as written. */
export class DeployParameterError extends ConfigError {}

/** Context values given on the command line (`-c clusters='[...]'`) arrive as JSON strings. */
function fromJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function readDeployParameters(node: Node): DeployParameters {
  const raw = {
    clusters: fromJson(node.tryGetContext('clusters')) ?? [],
    watchProxyMode: node.tryGetContext('watchProxyMode') ?? 'on-demand',
    alarmEmail: node.tryGetContext('alarmEmail') || undefined,
    notifications: node.tryGetContext('notifications') ?? Boolean(node.tryGetContext('notificationEmail')),
    notificationEmail: node.tryGetContext('notificationEmail') || undefined,
    reconcileConcurrency: node.tryGetContext('reconcileConcurrency') ?? 10,
    resyncPeriodSeconds: node.tryGetContext('resyncPeriodSeconds') ?? DEFAULT_RESYNC_PERIOD_SECONDS,
    vpc: fromJson(node.tryGetContext('vpc')) || undefined,
    checks: fromJson(node.tryGetContext('checks')) ?? {},
  };
  const parsed = schema.safeParse(raw);
  const authorization = node.tryGetContext('apiAuthorization');
  const policy = authorization === undefined || authorization === '' ? null : parseAuthorization(typeof authorization === 'string' ? authorization : JSON.stringify(authorization));
  if (policy !== null && 'problems' in policy) {
    throw new DeployParameterError(`invalid deploy parameters (CDK context): ${policy.problems.map((p) => `apiAuthorization.${p}`).join('; ')}`);
  }
  if (parsed.success) return { ...parsed.data, ...(policy ? { apiAuthorization: policy.policy } : {}) };
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new DeployParameterError(`invalid deploy parameters (CDK context): ${problems.join('; ')}`);
}
