// The `rollouts get` screen, exactly: header, steps with the current one marked, and the revision
// tree, for a release waiting for approval at step 1; plus the icons and ages it is made of.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GetResponse } from '../../../shared/api/types.ts';
import type { WorkloadPod, WorkloadResponse } from '../../../shared/api/workloadRoutes.ts';
import { renderRollout } from '../../../shared/cli/views/rolloutScreen.ts';
import type { RolloutSummary, StatusResponse } from '../../../shared/api/types.ts';
import { factsOfState, factsOfStatus, factsOfSummary, rolloutStatus } from '../../../shared/client/status.ts';
import { COVERED_GLYPHS, formatAge } from '../../../shared/client/symbols.ts';
import { podStatus } from '../../../shared/cli/views/workloadTree.ts';
import { parseRollout } from '../../../shared/rollout/spec.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { ReleaseState } from '../../../shared/rollout/types.ts';
import { awaitingApproval, release } from '../api/apiFixtures.ts';

const DOC = {
  apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1', kind: 'Rollout', metadata: { name: 'web' },
  spec: {
    workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    strategy: { canary: { steps: [{ replicas: 1, pause: {} }, { replicas: '50%', pause: { duration: 60 } }, { replicas: '100%' }] } },
  },
};
const NOW = new Date('2030-01-01T00:10:00Z');

function rollout(state: ReleaseState): GetResponse {
  return { rollout: { cluster: 'local', namespace: 'default', name: 'web' }, specVersion: 1, spec: parseRollout(DOC, { cluster: 'local' }), document: DOC, state, version: 5 };
}

function pod(name: string, over: Partial<WorkloadPod> = {}): WorkloadPod {
  return { name, ready: true, readyContainers: 1, containers: 1, phase: 'Running', reason: null, ageSeconds: 300, restarts: 0, ...over };
}

const WORKLOAD: WorkloadResponse = {
  rollout: { cluster: 'local', namespace: 'default', name: 'web' }, kind: 'Deployment', name: 'web', replicas: 4, holderKind: 'ReplicaSet',
  revisions: [
    { number: 2, id: 'rev-b', images: { app: 'nginx:1.28' }, holder: 'web-rev-b', desired: 1, current: 1, ready: 1, available: 1, ageSeconds: 20, pods: [pod('web-rev-b-aaaaa', { ageSeconds: 19 })] },
    {
      number: 1, id: 'rev-a', images: { app: 'nginx:1.27' }, holder: 'web-5d4f8', desired: 3, current: 3, ready: 2, available: 2, ageSeconds: 600,
      pods: [pod('web-5d4f8-bbbbb'), pod('web-5d4f8-ccccc', { ready: false, readyContainers: 0, restarts: 3 }), pod('web-5d4f8-ddddd')],
    },
  ],
};

describe('the rollouts get screen', () => {
  test('a release waiting for approval at step 1: header, marked steps, tagged tree', () => {
    const state = awaitingApproval({ message: 'step 1/3: awaiting approval', release: release({ observedReplicas: 4 }) });
    const text = renderRollout({ rollout: rollout(state), workload: WORKLOAD, workloadError: null, fetchedAt: new Date(NOW.getTime() - 2000) }, NOW);
    assert.equal(text, `Name:            web
Namespace:       default
Cluster:         local
Status:          ‖ Paused
Message:         step 1/3: awaiting approval
Workload:        Deployment web
Strategy:        Canary (batches)
  Step:          1/3
  SetWeight:     25% (1/4 pods)
  ActualWeight:  25% (1/4 pods available)
Images:          nginx:1.28 (canary)
                 nginx:1.27 (stable)
Revisions:
  Stable:        1 (web-5d4f8)
  Target:        2 (web-rev-b)
Replicas:
  Desired:       4
  Current:       4
  Updated:       1
  Ready:         3
  Available:     3

Steps:
  ‖  1.  replicas: 1     1/4  pause: approval  ◀ awaiting approval (rollouts approve web)
     2.  replicas: 50%   2/4  pause: 60s
     3.  replicas: 100%  4/4

NAME                        KIND        STATUS         AGE   INFO
↻ web                       Rollout     ‖ Paused
├──# revision:2
│  └──◫ web-rev-b           ReplicaSet  ✔ Healthy      22s   canary
│     └──□ web-rev-b-aaaaa  Pod         ✔ Running      21s   ready:1/1
└──# revision:1
   └──◫ web-5d4f8           ReplicaSet  ◌ Progressing  10m   stable
      ├──□ web-5d4f8-bbbbb  Pod         ✔ Running      5m2s  ready:1/1
      ├──□ web-5d4f8-ccccc  Pod         ⚠ not ready    5m2s  ready:0/1,restarts:3
      └──□ web-5d4f8-ddddd  Pod         ✔ Running      5m2s  ready:1/1
`);
  });

  test('a timed pause shows the time left; done steps are ticked', () => {
    const state = awaitingApproval({ message: 'step 2/3: pausing 60s', nextWakeAt: '2030-01-01T00:10:42Z', release: release({ stepIndex: 1 }) });
    const text = renderRollout({ rollout: rollout(state), workload: null, workloadError: 'no cluster access', fetchedAt: NOW }, NOW);
    assert.match(text, /^ {2}✔ {2}1\. {2}replicas: 1 {5}1\/4 {2}pause: approval$/m);
    assert.match(text, /^ {2}‖ {2}2\. {2}replicas: 50% {3}2\/4 {2}pause: 60s +◀ pausing 60s \(42s left\)$/m);
    assert.match(text, /^ {2}Stable: {8}rev-a$/m);
    assert.match(text, /\(no revision tree: no cluster access\)\n$/);
  });

  test('a routed Rollout shows each step\'s traffic, and a step waiting on its router names it', () => {
    const doc = structuredClone(DOC);
    doc.spec.strategy.canary = {
      steps: [{ replicas: 1, traffic: '10%', pause: {} }, { replicas: '50%', matches: [{ headers: [{ name: 'x-canary', value: 'yes' }] }], pause: { duration: 60 } }, { replicas: '100%' }],
      trafficRoutings: [{ service: 'web', gateway: { httpRouteName: 'web' } }],
    } as never;
    const waiting = 'step 1/3: httproute/web: waiting 3s (gracePeriodSeconds) for the change to reach the proxy';
    const state = awaitingApproval({ phase: 'Progressing', message: waiting, release: release({ observedReplicas: 4, stepState: 'TrafficRouting' }) });
    const text = renderRollout({ rollout: { ...rollout(state), spec: parseRollout(doc, { cluster: 'local' }), document: doc }, workload: null, workloadError: null, fetchedAt: NOW }, NOW);
    assert.match(text, /^ {2}◌ {2}1\. {2}replicas: 1 {5}1\/4 {2}traffic: 10% {19}pause: approval {2}◀ httproute\/web: waiting 3s \(gracePeriodSeconds\) for the change to reach the proxy$/m);
    assert.match(text, /^ {5}2\. {2}replicas: 50% {3}2\/4 {2}traffic: matches x-canary=yes {2}pause: 60s$/m);
    assert.match(text, /^ {5}3\. {2}replicas: 100% {2}4\/4 {2}traffic: original$/m);
  });

  test('Target names the ReplicaSet, or says there is none yet (Partition creates it with the first batch)', () => {
    const state = awaitingApproval({ release: release({ targetRevision: 'rev-c', stableRevision: 'rev-a' }) });
    const text = renderRollout({ rollout: rollout(state), workload: WORKLOAD, workloadError: null, fetchedAt: NOW }, NOW);
    assert.match(text, /^ {2}Stable: {8}1 \(web-5d4f8\)$/m);
    assert.match(text, /^ {2}Target: {8}rev-c \(no ReplicaSet yet\)$/m);
  });

  test('after a completed release every step is ticked and Step is n/n', () => {
    const state: ReleaseState = { ...initialState(), phase: 'Completed', message: 'release r1 completed', stableRevision: 'rev-b', lastRelease: release() };
    const text = renderRollout({ rollout: rollout(state), workload: null, workloadError: null, fetchedAt: NOW }, NOW);
    assert.match(text, /^Status: {10}✔ Completed$/m);
    assert.match(text, /^ {2}Step: {10}3\/3$/m);
    assert.equal(text.match(/^ {2}✔ /gm)?.length, 3);
  });
});

describe('status icons and ages', () => {
  test('phases use Argo Rollouts icons; a release at a pause step shows as Paused', () => {
    const text = (state: ReleaseState) => rolloutStatus(factsOfState(state)).text;
    assert.equal(text({ ...initialState(), phase: 'Healthy' }), '✔ Healthy');
    assert.equal(text({ ...initialState(), phase: 'Aborted' }), '✖ Aborted');
    assert.equal(text(awaitingApproval()), '‖ Paused');
    assert.equal(text(awaitingApproval({ release: release({ stepState: 'Upgrading' }) })), '◌ Progressing');
    assert.equal(text(awaitingApproval({ userPaused: true, release: release({ stepState: 'Upgrading' }) })), '‖ Paused');
  });

  test('awaiting approval is one status in every view: get (the state), list (the summary), status (the status response)', () => {
    const state = awaitingApproval({ release: release({ stepIndex: 0, stepState: 'StepPaused' }) });
    const summary: RolloutSummary = {
      rollout: { cluster: 'local', namespace: 'default', name: 'web' }, workload: { kind: 'Deployment', name: 'web' }, phase: state.phase,
      paused: false, message: state.message, cause: null, step: { index: 0, total: 3, state: 'StepPaused' }, releaseId: 'r1',
    };
    const status = { phase: state.phase, step: summary.step, paused: { user: false, spec: false } } as StatusResponse;
    const seen = new Set([rolloutStatus(factsOfState(state)).text, rolloutStatus(factsOfSummary(summary)).text, rolloutStatus(factsOfStatus(status)).text]);
    assert.deepEqual([...seen], ['‖ Paused']);
  });

  test('every glyph of the get screen is one common monospace fonts draw (no ॥, ⧉ or ⟳)', () => {
    const state = awaitingApproval({ message: 'step 1/3: awaiting approval', release: release({ observedReplicas: 4 }) });
    const text = renderRollout({ rollout: rollout(state), workload: WORKLOAD, workloadError: null, fetchedAt: NOW }, NOW);
    const foreign = [...text].filter((c) => c.charCodeAt(0) > 0x7e && !COVERED_GLYPHS.has(c));
    assert.deepEqual(foreign, []);
    for (const c of ['॥', '⧉', '⟳']) assert.equal(COVERED_GLYPHS.has(c), false, c);
  });

  test('after a scale the batch counts against the replicas it was computed for, as the history does', () => {
    // The workload was scaled 4 → 8; the release has not restarted its batch yet (observedReplicas 4).
    const state = awaitingApproval({ message: 'step 1/3: awaiting approval', release: release({ observedReplicas: 4 }) });
    const text = renderRollout({ rollout: rollout(state), workload: { ...WORKLOAD, replicas: 8 }, workloadError: null, fetchedAt: NOW }, NOW);
    assert.match(text, /^ {2}SetWeight: {5}25% \(1\/4 pods\)$/m);
    assert.match(text, /^ {2}ActualWeight: {2}25% \(1\/4 pods available\)$/m);
  });

  test('pods: ready, not ready, starting, terminating', () => {
    assert.equal(podStatus(pod('a')), '✔ Running');
    assert.equal(podStatus(pod('a', { ready: false })), '⚠ not ready');
    assert.equal(podStatus(pod('a', { phase: 'Pending', ready: false, reason: 'ContainerCreating' })), '◌ ContainerCreating');
    assert.equal(podStatus(pod('a', { phase: 'Pending', ready: false, reason: 'ImagePullBackOff' })), '⚠ ImagePullBackOff');
    assert.equal(podStatus(pod('a', { reason: 'Terminating' })), '◌ Terminating');
  });

  test('ages read like kubectl', () => {
    assert.deepEqual([5, 119, 125, 600, 7200, 7260, 30 * 3600, 5 * 86400].map(formatAge), ['5s', '119s', '2m5s', '10m', '120m', '121m', '30h', '5d']);
  });
});
