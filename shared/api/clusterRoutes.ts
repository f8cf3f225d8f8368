// Cluster registration: how the reconcile reaches a cluster by name. EKS (name + region, optionally
// a role to assume) or an endpoint (non-EKS, local) whose bearer token is in Secrets Manager, read
// optionally through a role. Exactly one. It also carries the cluster's labels and time zone, which
// fleets pick clusters and read release windows by (shared/fleet/clusters.ts).
import * as z from 'zod';
import { NotFoundError } from '../errors.ts';
import { clusterPlacementSchema } from '../fleet/clusters.ts';
import type { ClusterRegistration } from '../ports.ts';
import { jsonBody, parseBody } from './body.ts';
import { badRequest, json } from './httpError.ts';
import { requestReconcile } from './enqueue.ts';
import { clusterNameParam } from './params.ts';
import type { RouteContext } from './routes.ts';
import type { ApiResponse, ClusterListResponse, ClusterResponse } from './types.ts';

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
