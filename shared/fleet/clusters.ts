// What a fleet knows of a registered cluster: its name, its labels (what selectors and waves pick
// it by) and its IANA time zone (where its release windows are read). A registration carries them
// (shared/ports.ts ClusterRegistration extends ClusterPlacement); the checks here are the
// ones the API and the CDK parameter run when a cluster is registered.
import * as z from 'zod';
import type { FieldIssue } from '../errors.ts';
import { toFieldIssues } from '../rollout/specIssues.ts';
import { isKnownTimeZone } from '../rollout/windows.ts';
import { labelsSchema, type Labels } from './labels.ts';

/** The placement half of a cluster registration. */
export interface ClusterPlacement {
  /** e.g. ring=canary, region=eu-west-1, env=prod; absent = none. */
  labels?: Labels;
  /** IANA zone the cluster's fleet release windows are read in; absent = UTC. */
  timeZone?: string;
}

/** A registered cluster as a fleet pass sees it. */
export interface ClusterInfo {
  name: string;
  labels: Labels;
  timeZone: string | null;
}

/** Release windows written without a time zone are read in UTC on a cluster registered without one. */
export const DEFAULT_CLUSTER_TIME_ZONE = 'UTC';

export const clusterPlacementSchema = {
  labels: labelsSchema.optional(),
  timeZone: z.string().refine(isKnownTimeZone, { error: 'unknown IANA time zone (e.g. "Europe/Paris", "UTC")' }).optional(),
};

const placement = z.object(clusterPlacementSchema);

/** Every problem of a registration's labels and time zone, each with its field path ("labels[\"ring\"]"). */
export function clusterPlacementIssues(reg: ClusterPlacement): FieldIssue[] {
  const result = placement.safeParse({ labels: reg.labels, timeZone: reg.timeZone }, { reportInput: true });
  return result.success ? [] : result.error.issues.flatMap((i) => toFieldIssues(i, ''));
}

export function clusterInfo(reg: ClusterPlacement & { name: string }): ClusterInfo {
  return { name: reg.name, labels: { ...reg.labels }, timeZone: reg.timeZone ?? null };
}

/**
 * The registrations fleets may select: a cluster that is leaving (deregistered while it still had
 * rollouts to hand back, shared/fleet/leave.ts) is no longer one, so its members leave their fleets.
 */
export function selectableClusters(regs: readonly (ClusterPlacement & { name: string; leaving?: unknown })[]): ClusterInfo[] {
  return regs.filter((r) => r.leaving === undefined).map(clusterInfo);
}
