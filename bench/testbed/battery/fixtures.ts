// The rollouts the battery's cases aim at, each in the state its cases need (set up by setup.ts):
//   web      a Deployment (container app, registry.invalid/app:v1), adopted, Healthy: one revision
//   busy     a release to v2 waiting for approval at step 1 (index 0)
//   held     paused by a pause command
//   leaving  a delete recorded, not yet carried out (nothing reconciles during the battery)
//   dupes    a pause recorded under a known command id, not yet applied
//   orphan   a Rollout whose workload "missing" does not exist
//   db       a StatefulSet, adopted: one ControllerRevision
//   recreate a Deployment with strategy Recreate and no Rollout (its apply is a case)
//   clone    a Rollout of a CloneSet, on a cluster without OpenKruise (its CRDs are not installed)
// Pure: names and documents only.
export const NAMESPACE = 'battery';

export const FIXTURES = {
  web: { kind: 'Deployment' },
  busy: { kind: 'Deployment' },
  held: { kind: 'Deployment' },
  leaving: { kind: 'Deployment' },
  dupes: { kind: 'Deployment', pendingCommandId: 'battery-pause-1' },
  orphan: { kind: 'Deployment', workload: 'missing' },
  db: { kind: 'StatefulSet' },
  recreate: { kind: 'Deployment' },
  clone: { kind: 'CloneSet', apiVersion: 'apps.kruise.io/v1alpha1' },
} as const;
export type FixtureName = keyof typeof FIXTURES;

export const STEPS = [{ replicas: 1, pause: {} }, { replicas: '50%', pause: {} }, { replicas: '100%' }];

/**
 * A valid Rollout document for the fixture `name` (or any name), changed by `opts`: `steps`,
 * `workloadRef`, `namespace`, `canary` (replaces strategy.canary) and `spec` (merged into spec).
 */
export function rolloutDocument(name: string, opts: { steps?: unknown[]; workloadRef?: Record<string, unknown>; namespace?: string; canary?: Record<string, unknown>; spec?: Record<string, unknown> } = {}): Record<string, unknown> {
  const fixture = (FIXTURES as Record<string, { kind: string; workload?: string; apiVersion?: string }>)[name];
  return {
    apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, ...(opts.namespace ? { namespace: opts.namespace } : {}) },
    spec: {
      workloadRef: opts.workloadRef ?? { apiVersion: fixture?.apiVersion ?? 'apps/v1', kind: fixture?.kind ?? 'Deployment', name: fixture?.workload ?? name },
      strategy: { canary: opts.canary ?? { steps: opts.steps ?? STEPS } },
      ...opts.spec,
    },
  };
}
