// Shared set-up for the API core tests: the in-memory store and queue, a fixed clock, a request
// builder, and Rollout documents/states in the shapes the routes expect.
import { handleApiRequest } from '../../../shared/api/handleApiRequest.ts';
import type { ApiDeps, ApiResponse } from '../../../shared/api/types.ts';
import { parseRollout } from '../../../shared/rollout/spec.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Release, ReleaseState, RolloutKey } from '../../../shared/rollout/types.ts';
import { MemoryQueue } from '../../../bench/testbed/fakes/memoryQueue.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { ManualClock } from '../../../bench/testbed/stateStoreFixtures.ts';

export const KEY: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };
export const PATH = '/v1/rollouts/prod/shop/web';
export const ALICE = 'arn:aws:iam::123456789012:user/alice';

export interface Api {
  store: MemoryStateStore;
  queue: MemoryQueue;
  clock: ManualClock;
  deps: ApiDeps;
  call(method: string, path: string, body?: unknown, opts?: { headers?: Record<string, string>; query?: Record<string, string> }): Promise<Reply>;
}

export interface Reply extends ApiResponse {
  json: Record<string, unknown>;
}

export function api(overrides: Partial<ApiDeps> = {}): Api {
  const clock = new ManualClock();
  const store = new MemoryStateStore({ clock });
  const queue = new MemoryQueue();
  let ids = 0;
  const deps: ApiDeps = {
    store, queue, clock,
    supportedKinds: ['Deployment'],
    maxBodyBytes: 4096,
    requireRegisteredCluster: false,
    newId: () => `generated-${++ids}`,
    ...overrides,
  };
  return {
    store, queue, clock, deps,
    async call(method, path, body, opts = {}) {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const res = await handleApiRequest({ method, path, query: opts.query ?? {}, headers: opts.headers ?? {}, body: text, principal: ALICE }, deps);
      return { ...res, json: JSON.parse(res.body) as Record<string, unknown> };
    },
  };
}

export function rolloutDoc(overrides: { name?: string; namespace?: string; kind?: string; steps?: unknown[] } = {}): Record<string, unknown> {
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name: overrides.name ?? 'web', ...(overrides.namespace ? { namespace: overrides.namespace } : {}) },
    spec: {
      workloadRef: { apiVersion: 'apps/v1', kind: overrides.kind ?? 'Deployment', name: 'web' },
      strategy: { canary: { steps: overrides.steps ?? [{ replicas: 1, pause: {} }, { replicas: '50%', pause: { duration: 60 } }, { replicas: '100%' }] } },
    },
  };
}

/** Stores the SPEC of `doc` for KEY, as an apply would. */
export async function seedRollout(a: Api, doc = rolloutDoc()): Promise<void> {
  await a.store.putSpec(KEY, parseRollout(doc, { cluster: KEY.cluster, namespace: KEY.namespace }), doc, 0);
}

export async function seedState(a: Api, state: ReleaseState): Promise<void> {
  const current = await a.store.load(KEY);
  await a.store.saveState(KEY, { state, outbox: { history: [], events: [] } }, current.state.version);
}

export function release(overrides: Partial<Release> = {}): Release {
  return {
    id: 'r1', kind: 'release', stableRevision: 'rev-a', targetRevision: 'rev-b', stepIndex: 0, stepState: 'StepPaused',
    stepStartedAt: '2030-01-01T00:00:00.000Z', stepReadyAt: '2030-01-01T00:01:00.000Z', observedReplicas: 4,
    startedAt: '2030-01-01T00:00:00.000Z', notBefore: null, finalizing: false, failure: null, gated: false, endPhase: 'Completed', templateSet: true, strategy: null,
    ...overrides,
  };
}

/** A release waiting for approval at step 1 (index 0), whose pause is `pause: {}`. */
export function awaitingApproval(overrides: Partial<ReleaseState> = {}): ReleaseState {
  return { ...initialState(), phase: 'Progressing', message: 'step 1/3: awaiting approval', release: release(), releaseSeq: 1, stableRevision: 'rev-a', ...overrides };
}

export function healthy(): ReleaseState {
  return { ...initialState(), phase: 'Healthy', message: 'stable at revision rev-a', stableRevision: 'rev-a' };
}
