// Sample values for the StateStore tests: a rollout spec, an active release state, history entries.
import type { ClusterRegistration, HistoryEntry, Outbox } from '../../shared/ports.ts';
import { initialState } from '../../shared/rollout/state.ts';
import type { Command, Release, ReleaseState, RolloutKey, RolloutSpec } from '../../shared/rollout/types.ts';

export const T0 = new Date('2030-01-01T00:00:00.000Z');

/** A clock the test moves by hand. */
export class ManualClock {
  private current: Date;
  constructor(start: Date = T0) {
    this.current = new Date(start);
  }
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date): void {
    this.current = new Date(at);
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

export function rolloutKey(name = 'web', namespace = 'shop', cluster = 'prod-eu'): RolloutKey {
  return { cluster, namespace, name };
}

export function sampleSpec(key: RolloutKey): RolloutSpec {
  return {
    ...key,
    apiVersion: 'rollouts.kruise.io/v1beta1',
    workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: key.name },
    paused: false,
    steps: [
      { replicas: 1, pause: { type: 'approval' } },
      { replicas: '50%', pause: { type: 'timed', seconds: 600 } },
      { replicas: '100%', pause: { type: 'none' } },
    ],
    deploymentStrategy: 'MinReadySeconds',
    onDeletePolicy: null,
    failureThreshold: null,
    progressDeadlineSeconds: 600,
    rollbackOnFailure: true,
    windows: [],
    startAt: null,
  };
}

export function sampleDocument(key: RolloutKey): unknown {
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name: key.name, namespace: key.namespace, annotations: {} },
    spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: key.name }, strategy: { canary: { steps: [{ replicas: 1, pause: {} }] } } },
  };
}

// Cast: Release grows as the planner does; the store round-trips whatever fields it has.
export function sampleRelease(id = 'r1'): Release {
  return {
    id,
    kind: 'release',
    stableRevision: 'rev-a',
    targetRevision: 'rev-b',
    stepIndex: 1,
    stepState: 'StepPaused',
    stepStartedAt: '2030-01-01T00:00:00.000Z',
    stepReadyAt: '2030-01-01T00:05:00.000Z',
    observedReplicas: 10,
    startedAt: '2030-01-01T00:00:00.000Z',
    notBefore: null,
    finalizing: false,
    failure: null,
    endPhase: 'Completed',
    templateSet: true,
  } as Release;
}

/** A release paused on a timed step: active, with a wake-up. */
export function activeState(overrides: Partial<ReleaseState> = {}): ReleaseState {
  return {
    ...initialState(),
    phase: 'Progressing',
    message: 'step 2/3: paused for 600s',
    release: sampleRelease(),
    releaseSeq: 1,
    stableRevision: 'rev-a',
    appliedCommandIds: ['cmd-old'],
    specVersion: 1,
    nextWakeAt: '2030-01-01T00:15:00.000Z',
    ...overrides,
  };
}

/** A finished release: not active, no wake-up (must not be in the due-index). */
export function completedState(): ReleaseState {
  return { ...initialState(), phase: 'Completed', message: 'done', lastRelease: sampleRelease(), releaseSeq: 1, stableRevision: 'rev-b' };
}

export function historyEntry(releaseId: string, seq: number, type = 'Batch Ready'): HistoryEntry {
  return { releaseId, seq, at: '2030-01-01T00:05:00.000Z', type, phase: 'Progressing', stepIndex: 0, message: `${type} ${seq}`, by: null };
}

export function sampleOutbox(key: RolloutKey): Outbox {
  return {
    history: [historyEntry('r1', 3)],
    events: [{ type: 'Batch Ready', rollout: key, releaseId: 'r1', phase: 'Progressing', stepIndex: 1, message: 'batch 2 ready', at: '2030-01-01T00:05:00.000Z', by: null, reason: 'step 2/3: moving pods', cause: null }],
  };
}

export function approve(id: string): Command {
  return { type: 'approve', stepIndex: 1, id, at: '2030-01-01T00:06:00.000Z', by: 'arn:aws:iam::123456789012:user/alice' };
}

export function eksCluster(name: string): ClusterRegistration {
  return { name, eks: { clusterName: `${name}-eks`, region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/rollouts' } };
}
