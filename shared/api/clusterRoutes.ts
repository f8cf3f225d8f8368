// Cluster registration: how the reconcile reaches a cluster by name. EKS (name + region, optionally
// a role to assume) or an endpoint (non-EKS, local) whose bearer token is in Secrets Manager, read
// optionally through a role. Exactly one. It also carries the cluster's labels and time zone, which
// fleets pick clusters and read release windows by (shared/fleet/clusters.ts).
import * as z from 'zod';
import { NotFoundError } from '../errors.ts';
import { clusterPlacementSchema } from '../fleet/clusters.ts';
import { leaveIssues, type StoredRolloutOfCluster } from '../fleet/leave.ts';
import type { ClusterRegistration } from '../ports.ts';
import { jsonBody, parseBody } from './body.ts';
import { HttpError, badRequest, json } from './httpError.ts';
import { requestReconcile } from './enqueue.ts';
import { clusterNameParam } from './params.ts';
import type { RouteContext } from './routes.ts';
import type { ApiResponse, ClusterDeregisterResponse, ClusterListResponse, ClusterResponse } from './types.ts';

const registration = z
  .strictObject({
    /** Optional in the body; when given it must be the name in the URL. */
    name: z.string().optional(),
    eks: z
      .strictObject({
        clusterName: z.string().regex(/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/, { error: 'must be an EKS cluster name (1-100 letters, digits, "-" or "_")' }),
        region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, { error: 'must be an AWS region such as eu-west-1' }),
        roleArn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, { error: 'must be an IAM role ARN' }).optional(),
      })
      .optional(),
    endpoint: z
      .strictObject({
        server: z.string().regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, { error: 'must be an http(s) URL of the kube-apiserver' }),
        caData: z.string().regex(/^[A-Za-z0-9+/=\s]+$/, { error: 'must be base64 (PEM bundle)' }).optional(),
        insecureSkipTlsVerify: z.boolean().optional(),
        tokenSecretArn: z.string().regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+$/, { error: 'must be a Secrets Manager secret ARN (the secret holds the bearer token)' }).optional(),
        roleArn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, { error: 'must be an IAM role ARN' }).optional(),
      })
      .optional(),
    ...clusterPlacementSchema,
  })
  .superRefine((b, ctx) => {
    if ((b.eks === undefined) === (b.endpoint === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['eks'], message: 'exactly one of eks or endpoint must be set' });
    }
  });

export async function putCluster({ req, params, deps }: RouteContext): Promise<ApiResponse> {
  const name = clusterNameParam(params);
  const body = parseBody(registration, jsonBody(req));
  if (body.name !== undefined && body.name !== name) throw badRequest([{ path: 'name', reason: `is "${body.name}" but the URL names "${name}"` }]);
  const reg: ClusterRegistration = {
    name,
    ...(body.eks ? { eks: body.eks } : {}),
    ...(body.endpoint ? { endpoint: body.endpoint } : {}),
    ...(body.labels !== undefined ? { labels: body.labels } : {}),
    ...(body.timeZone !== undefined ? { timeZone: body.timeZone } : {}),
  };
  const existed = (await deps.store.getCluster(name)) !== null;
  await deps.store.putCluster(reg);
  // Its rollouts may have been waiting for a way to reach it (or reach it differently now): look at each at once.
  for (const key of await deps.store.listRollouts({ cluster: name })) await requestReconcile(deps, key);
  // Fleets pick clusters by their labels: each looks again (a cluster joins, leaves, or changes wave).
  for (const fleet of await deps.store.listFleets()) await requestReconcile(deps, { fleet });
  const out: ClusterResponse = { cluster: reg };
  return json(existed ? 200 : 201, out);
}

export async function getCluster({ params, deps }: RouteContext): Promise<ApiResponse> {
  const name = clusterNameParam(params);
  const reg = await deps.store.getCluster(name);
  if (!reg) throw new NotFoundError(`cluster "${name}" is not registered`);
  const out: ClusterResponse = { cluster: reg };
  return json(200, out);
}

export async function listClusters({ deps }: RouteContext): Promise<ApiResponse> {
  const out: ClusterListResponse = { clusters: await deps.store.listClusters() };
  return json(200, out);
}

/**
 * DELETE /v1/clusters/<name> (`rollouts clusters deregister`): the cluster leaves, never leaving a
 * workload held (shared/fleet/leave.ts). Refused (409, each issue naming the rollout and why) while
 * a Rollout no fleet owns is stored for it, or a fleet member there is mid-release; nothing changes
 * then. With nothing stored it is deleted at once (200). Otherwise it is marked leaving (202): fleets
 * stop selecting it, their members leave with a history entry and hand their workloads back, and the
 * last one's removal deletes the registration (shared/reconcile/clusterLeave.ts). Repeating the
 * request is safe; a PUT meanwhile keeps the cluster.
 */
export async function deleteCluster({ req, params, deps }: RouteContext): Promise<ApiResponse> {
  const name = clusterNameParam(params);
  const reg = await deps.store.getCluster(name);
  if (!reg) throw new NotFoundError(`cluster "${name}" is not registered`);
  const stored = await storedRollouts(deps, name);
  const issues = leaveIssues(name, stored);
  if (issues.length > 0) {
    throw new HttpError(409, `cluster ${name} cannot leave now: ${issues.map((i) => i.reason).join('; ')}`, { issues });
  }
  const members = stored.filter((r) => r.spec !== null).map((r) => r.key);
  if (stored.length === 0) {
    await deps.store.deleteCluster(name);
    const out: ClusterDeregisterResponse = { cluster: name, deregistered: true, handingBack: [] };
    await enqueueFleets(deps);
    return json(200, out);
  }
  const leaving = reg.leaving ?? { since: deps.clock.now().toISOString(), by: req.principal };
  await deps.store.putCluster({ ...reg, leaving });
  // Each fleet looks again: its member there leaves (and is asked to hand its workload back).
  await enqueueFleets(deps);
  for (const key of stored.map((r) => r.key)) await requestReconcile(deps, key);
  const out: ClusterDeregisterResponse = { cluster: name, deregistered: false, handingBack: members, leaving };
  return json(202, out);
}

async function storedRollouts(deps: RouteContext['deps'], cluster: string): Promise<StoredRolloutOfCluster[]> {
  const out: StoredRolloutOfCluster[] = [];
  for (const key of await deps.store.listRollouts({ cluster })) {
    const loaded = await deps.store.load(key);
    out.push({ key, spec: loaded.spec?.spec ?? null, state: loaded.state.state });
  }
  return out;
}

async function enqueueFleets(deps: RouteContext['deps']): Promise<void> {
  for (const fleet of await deps.store.listFleets()) await requestReconcile(deps, { fleet });
}
