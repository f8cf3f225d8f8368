// What the dashboard server answers and the page reads (shared by both sides of the dashboard).
import type { FleetGetResponse } from '../api/fleetRoutes.ts';
import type { GetResponse } from '../api/types.ts';
import type { WorkloadResponse } from '../api/workloadRoutes.ts';
import type { HistoryEntry } from '../ports.ts';

/** Every command the page may send: approve, pause, resume, and the destructive ones (confirmed first). */
export const DASHBOARD_VERBS = ['approve', 'pause', 'resume', 'abort', 'retry', 'undo'] as const;
export type DashboardVerb = (typeof DASHBOARD_VERBS)[number];

/**
 * The fleet verbs the fleet page sends, through the same API routes and authorization as
 * `rollouts fleet …` (shared/api/fleetRoutes.ts). `skip` stays a CLI verb: it names a cluster.
 */
export const DASHBOARD_FLEET_VERBS = ['release', 'approve', 'pause', 'resume', 'abort'] as const;
export type DashboardFleetVerb = (typeof DASHBOARD_FLEET_VERBS)[number];

/** The page sends it on every command; a page of another site cannot (it would need a CORS preflight). */
export const DASHBOARD_HEADER = 'x-rollouts-dashboard';

export interface DashboardConfig {
  mode: 'local' | 'deployed';
  endpoint: string;
  pollMs: number;
  /** The --cluster the dashboard was started with, or null for every cluster. */
  cluster: string | null;
}

/** GET /api/rollouts/:cluster/:ns/:name. */
export interface RolloutDetail {
  rollout: GetResponse;
  workload: WorkloadResponse | null;
  /** Why there is no workload tree (an API without cluster access, a cluster error). */
  workloadError: string | null;
  history: HistoryEntry[];
  fetchedAt: string;
}

/** GET /api/fleets/:name: the fleet with its members (waves × clusters) and its history. */
export interface FleetDetail {
  fleet: FleetGetResponse;
  history: HistoryEntry[];
  fetchedAt: string;
}
