// The page's calls to the dashboard server (same origin). Commands carry the dashboard's header,
// which a page of another site could not send without a CORS preflight (server.ts).
import type { FleetCommandResponse, FleetSummary } from '../../api/fleetRoutes.ts';
import type { ListResponse, CommandResponse } from '../../api/types.ts';
import { RolloutsError } from '../../errors.ts';
import type { RolloutKey } from '../../rollout/types.ts';
import { DASHBOARD_HEADER, type DashboardConfig, type DashboardFleetVerb, type DashboardVerb, type FleetDetail, type RolloutDetail } from '../types.ts';

/** A call to the dashboard server that failed: the server is gone, or it answered an error. */
export class RequestFailed extends RolloutsError {}

async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers: { accept: 'application/json', ...init.headers } });
  } catch {
    throw new RequestFailed('the dashboard server does not answer (is `rollouts dashboard` still running?)');
  }
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!res.ok) throw new RequestFailed(body?.error?.message ?? `HTTP ${res.status}`);
  return body as T;
}

export function rolloutPath(key: RolloutKey): string {
  return [key.cluster, key.namespace, key.name].map(encodeURIComponent).join('/');
}

export const dashboardApi = {
  config: () => call<DashboardConfig>('/api/config'),
  list: () => call<ListResponse>('/api/rollouts'),
  detail: (key: RolloutKey) => call<RolloutDetail>(`/api/rollouts/${rolloutPath(key)}`),
  command: (key: RolloutKey, verb: DashboardVerb, body: Record<string, unknown> = {}) =>
    call<CommandResponse>(`/api/rollouts/${rolloutPath(key)}/${verb}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [DASHBOARD_HEADER]: '1' },
      body: JSON.stringify(body),
    }),
  fleets: () => call<{ fleets: FleetSummary[] }>('/api/fleets'),
  fleet: (name: string) => call<FleetDetail>(`/api/fleets/${encodeURIComponent(name)}`),
  fleetCommand: (name: string, verb: DashboardFleetVerb, body: Record<string, unknown> = {}) =>
    call<FleetCommandResponse>(`/api/fleets/${encodeURIComponent(name)}/${verb}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [DASHBOARD_HEADER]: '1' },
      body: JSON.stringify(body),
    }),
};
