// What the dashboard server answers and the page reads (shared by both sides of the dashboard).
import type { GetResponse } from '../api/types.ts';
import type { WorkloadResponse } from '../api/workloadRoutes.ts';
import type { HistoryEntry } from '../ports.ts';

/** Every command the page may send: approve, pause, resume, and the destructive ones (confirmed first). */
export const DASHBOARD_VERBS = ['approve', 'pause', 'resume', 'abort', 'retry', 'undo'] as const;
export type DashboardVerb = (typeof DASHBOARD_VERBS)[number];

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
