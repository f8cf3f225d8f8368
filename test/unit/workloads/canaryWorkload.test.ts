// The Deployment driver's CanaryWorkload strategy (Kruise's enableExtraWorkloadForCanary): the view
// and the exact writes, from wire-format objects (shared/workloads/deployment/canary*.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, KubeWrite } from '../../../shared/kube/types.ts';
import type { Action } from '../../../shared/rollout/types.ts';
import { deploymentDriver } from '../../../shared/workloads/deployment/driver.ts';
import { deploymentWatches } from '../../../shared/workloads/deployment/watches.ts';
import { CANARY_FINISHING, CANARY_LABEL, CANARY_OF, CANARY_REVISION } from '../../../shared/workloads/deployment/canaryObjects.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';
import { stepTarget } from '../../../shared/rollout/arithmetic.ts';
import { KRUISE_API_VERSION, parseRollout } from '../../../shared/rollout/spec.ts';
import { deployment, observation, replicaSet, template, V1, V2 } from './deploymentFixtures.ts';

const podMetadata = { labels: { track: 'canary' }, annotations: { 'example.com/canary': 'yes' } };

function canary(over: { replicas?: number; available?: number; revision?: string; finishing?: boolean; labels?: Record<string, string>; deleting?: boolean } = {}): KubeObject {
  const replicas = over.replicas ?? 1;
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: {
      name: 'web-canary', namespace: 'ns', uid: 'canary-uid', resourceVersion: '300', generation: 1,
      labels: over.labels ?? { [CANARY_LABEL]: 'web' },
      annotations: { [CANARY_OF]: 'web', [CANARY_REVISION]: over.revision ?? V2, ...(over.finishing ? { [CANARY_FINISHING]: 'true' } : {}) },
      ...(over.deleting ? { deletionTimestamp: '2026-12-03T06:00:00Z' } : {}),
    },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template('web:v2', podMetadata.labels) },
    status: { observedGeneration: 1, replicas, readyReplicas: over.available ?? replicas, availableReplicas: over.available ?? replicas },
  };
}

function withCanary(d: KubeObject, children: KubeObject[], c: KubeObject | null) {
  return { ...observation(d, children), ...(c ? { others: [c] } : {}) };
}

function step(k: number, n = 10, final = false): Action {
  return { type: 'distribute', target: V2, distribution: { [V2]: k, [V1]: n - k }, strategy: 'CanaryWorkload', final, podMetadata };
}

const stable = () => replicaSet('web-1', 'web:v1', { replicas: 10 });
const summary = (ws: KubeWrite[]) => ws.map((w) => `${w.verb} ${w.verb === 'create' ? w.object.metadata.name : w.ref.name}`);

describe('CanaryWorkload view: the canary Deployment\'s pods beside the paused stable Deployment', () => {
  it('reports the stable revision at N and the canary\'s pods under the target revision, with the strategy in flight', () => {
    const view = deploymentDriver.view(withCanary(deployment(), [stable()], canary({ replicas: 2, available: 1 })));
    assert.deepEqual(view.revisions.map((r) => [r.id, r.desired, r.current, r.available]), [[V2, 2, 2, 1], [V1, 10, 10, 10]]);
    assert.equal(view.strategy, 'CanaryWorkload');
    assert.equal(view.held, true);
    assert.equal(view.templateRevision, V2);
  });

  it('counts an unpaused Deployment as held only once our last move marked the canary finishing', () => {
    const unpaused = deployment({ paused: false });
    assert.equal(deploymentDriver.view(withCanary(unpaused, [stable()], canary())).held, false, 'someone else unpaused it mid-release: the planner holds it again');
    assert.equal(deploymentDriver.view(withCanary(unpaused, [stable()], canary({ finishing: true }))).held, true);
  });

  it('ignores a Deployment that holds the canary name but is not ours, and one being deleted', () => {
    for (const other of [canary({ labels: {} }), canary({ deleting: true })]) {
      const view = deploymentDriver.view(withCanary(deployment(), [stable()], other));
      assert.deepEqual(view.revisions.map((r) => [r.id, r.desired]), [[V1, 10]]);
      assert.equal(view.strategy, null);
    }
  });
});

describe('CanaryWorkload writes: a step creates or grows the canary Deployment, never shrinks it', () => {
  it('creates web-canary from the new template with patchPodTemplateMetadata on its pods only, owned by the user\'s Deployment', () => {
    const d = deployment();
    const writes = deploymentDriver.writes(withCanary(d, [stable()], null), [step(1)]);
    assert.deepEqual(summary(writes), ['create web-canary']);
    const created = (writes[0] as Extract<KubeWrite, { verb: 'create' }>).object;
    assert.deepEqual(created.metadata.labels, { [CANARY_LABEL]: 'web' });
    assert.deepEqual(created.metadata.annotations, { [CANARY_OF]: 'web', [CANARY_REVISION]: V2 });
    assert.deepEqual(created.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid' }]);
    const spec = created.spec as Record<string, unknown>;
    assert.equal(spec.replicas, 1);
    assert.equal(spec.paused, undefined, 'the canary is never paused');
    assert.deepEqual(spec.selector, { matchLabels: { app: 'web' } });
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    assert.deepEqual((spec.template as { metadata: unknown }).metadata, { labels: { app: 'web', track: 'canary' }, annotations: { 'example.com/canary': 'yes' } });
    assert.deepEqual((d.spec as { template: unknown }).template, template('web:v2'), 'the user\'s template is untouched');
  });

  it('scales the canary up to the step\'s pods with its resourceVersion, and leaves one already as large alone', () => {
    const writes = deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 1 })), [step(5)]);
    assert.deepEqual(writes, [{ verb: 'patch', ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web-canary' }, patchType: 'merge', resourceVersion: '300', patch: { spec: { replicas: 5 } }, reason: 'scale web-canary to 5' }]);
    assert.deepEqual(deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 5 })), [step(3)]), [], 'never scaled down mid-release (the user scaled N down)');
    assert.deepEqual(deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 5 })), [step(5)]), [], 'converged');
  });

  it('creates nothing where another object holds the canary name, and the view says why the step waits', () => {
    const foreign = withCanary(deployment(), [stable()], canary({ labels: { app: 'other' } }));
    assert.deepEqual(deploymentDriver.writes(foreign, [step(1)]), []);
    assert.match(deploymentDriver.view(foreign).blocked ?? '', /^Deployment web-canary exists and is not this Deployment's canary \(no label rollouts\.kruise\.io\/canary-deployment=web\).*rename or delete it$/);
    const atRest = withCanary(deployment({ image: 'web:v1' }), [stable()], canary({ labels: { app: 'other' } }));
    assert.equal(deploymentDriver.view(atRest).blocked, null, 'a Deployment of that name is no concern at rest');
  });

  it('holds the user\'s Deployment by pausing it, and nothing else', () => {
    const writes = deploymentDriver.writes(withCanary(deployment({ paused: false }), [stable()], canary()), [{ type: 'hold' }, step(1)]);
    assert.deepEqual(writes.map((w) => w.verb === 'patch' && w.patch), [{ spec: { paused: true } }]);
  });
});

describe('CanaryWorkload writes: completion hands the user\'s Deployment back, then removes the canary', () => {
  it('marks the canary finishing, then unpauses the user\'s Deployment, changing nothing else of it', () => {
    const writes = deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 10 })), [step(10, 10, true)]);
    assert.deepEqual(summary(writes), ['patch web-canary', 'patch web']);
    assert.deepEqual(writes.map((w) => w.verb === 'patch' && w.patch), [{ metadata: { annotations: { [CANARY_FINISHING]: 'true' } } }, { spec: { paused: false } }]);
  });

  it('grows the canary to the last batch and waits for its pods to be Available before the user\'s Deployment rolls (Kruise\'s last batch)', () => {
    assert.deepEqual(deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 2 })), [step(10, 10, true)]).map((w) => w.verb === 'patch' && w.patch), [{ spec: { replicas: 10 } }]);
    assert.deepEqual(deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 10, available: 9 })), [step(10, 10, true)]), [], 'not yet: one canary pod is not Available');
    assert.deepEqual(summary(deploymentDriver.writes(withCanary(deployment(), [stable()], null), [step(10, 10, true)])), ['create web-canary'], 'a release whose only step is 100%');
  });

  it('unpauses at once for a rollback or an undo to a revision the user\'s Deployment still holds, with no canary', () => {
    const back = deployment({ image: 'web:v1' });
    const undo: Action = { type: 'distribute', target: V1, distribution: { [V1]: 10 }, strategy: 'CanaryWorkload', final: true };
    assert.deepEqual(deploymentDriver.writes(withCanary(back, [stable(), replicaSet('web-2', 'web:v2', { replicas: 10, revision: 2 })], null), [undo]).map((w) => w.verb === 'patch' && w.patch), [{ spec: { paused: false } }]);
  });

  it('keeps the canary while the native controller rolls the user\'s Deployment, then scales it to 0 and deletes it', () => {
    const rolling = deployment({ paused: false });
    rolling.status = { observedGeneration: 2, replicas: 10, updatedReplicas: 6, availableReplicas: 9 };
    const children = [replicaSet('web-1', 'web:v1', { replicas: 4 }), replicaSet('web-2', 'web:v2', { replicas: 6, revision: 2 })];
    assert.deepEqual(deploymentDriver.writes(withCanary(rolling, children, canary({ replicas: 10, finishing: true })), [step(10, 10, true)]), []);
    const done = deployment({ paused: false });
    done.status = { observedGeneration: 2, replicas: 10, updatedReplicas: 10, availableReplicas: 10 };
    const finished = [replicaSet('web-1', 'web:v1', { replicas: 0 }), replicaSet('web-2', 'web:v2', { replicas: 10, revision: 2 })];
    const view = deploymentDriver.view(withCanary(done, finished, canary({ replicas: 10, finishing: true })));
    assert.deepEqual(view.revisions.find((r) => r.id === V2)?.desired, 20, 'the release is not settled while the canary runs');
    const writes = deploymentDriver.writes(withCanary(done, finished, canary({ replicas: 10, finishing: true })), [step(10, 10, true)]);
    assert.deepEqual(summary(writes), ['patch web-canary', 'delete web-canary']);
    assert.deepEqual((writes[0] as { patch: unknown }).patch, { spec: { replicas: 0 } });
  });
});

describe('CanaryWorkload writes: abort, rollback and a deleted Rollout remove the canary first', () => {
  it('puts the stable template back on the paused Deployment, then removes a canary of another revision before any other move', () => {
    const restore = deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 5 })), [{ type: 'restore-template', revision: V1, strategy: 'CanaryWorkload' }]);
    assert.deepEqual(restore.map((w) => w.verb === 'patch' && w.patch), [{ spec: { template: { spec: { containers: [{ name: 'app', image: 'web:v1', resources: {} }] } } } }]);
    const back = deployment({ image: 'web:v1' });
    const rollback: Action = { type: 'distribute', target: V1, distribution: { [V1]: 10 }, strategy: 'CanaryWorkload', final: true };
    const writes = deploymentDriver.writes(withCanary(back, [stable()], canary({ replicas: 5 })), [rollback]);
    assert.deepEqual(summary(writes), ['patch web-canary', 'delete web-canary'], 'the user\'s Deployment stays paused until the canary is gone');
    assert.deepEqual(summary(deploymentDriver.writes(withCanary(back, [stable()], canary({ replicas: 0 })), [rollback])), ['delete web-canary'], 'a pass that died after the scale-down deletes on replay');
  });

  it('hands a deleted Rollout\'s Deployment back: the canary removed, then the unpause', () => {
    const writes = deploymentDriver.writes(withCanary(deployment(), [stable()], canary({ replicas: 3 })), [{ type: 'release-hold' }]);
    assert.deepEqual(summary(writes), ['patch web-canary', 'delete web-canary', 'patch web']);
    assert.deepEqual((writes[2] as { patch: unknown }).patch, { spec: { paused: false } });
  });

  it('replaces a canary of an interrupted revision: removed first, the new one created on the next pass', () => {
    const v3 = deployment({ image: 'web:v3' });
    const restart: Action = { type: 'distribute', target: deploymentDriver.view(observation(v3, [])).templateRevision, distribution: {}, strategy: 'CanaryWorkload', final: false };
    assert.deepEqual(summary(deploymentDriver.writes(withCanary(v3, [stable()], canary({ replicas: 5 })), [restart])), ['patch web-canary', 'delete web-canary']);
  });
});

describe('CanaryWorkload observation and watches', () => {
  it('reads web-canary only while a canary may exist, so a Deployment at rest costs no more', async () => {
    const atRest = new MemoryCluster();
    atRest.put(deployment({ image: 'web:v1' }));
    atRest.put({ ...stable(), metadata: { ...stable().metadata, labels: { app: 'web' } } });
    await deploymentDriver.observe(atRest, 'ns', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, new Date());
    assert.deepEqual(atRest.requests.map((r) => r.verb), ['get', 'list']);

    const releasing = new MemoryCluster();
    releasing.put(deployment());
    releasing.put(stable());
    releasing.put(canary({ replicas: 2 }));
    const obs = await deploymentDriver.observe(releasing, 'ns', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, new Date());
    assert.equal(deploymentDriver.view(obs).strategy, 'CanaryWorkload');
  });

  it('maps the canary Deployment and its ReplicaSets to the user\'s Deployment', () => {
    const [deployments, replicaSets] = deploymentWatches;
    assert.equal(deployments?.workloadOf(canary()), 'web');
    assert.equal(deployments?.workloadOf(deployment()), 'web');
    const canaryRs = { ...replicaSet('web-canary-abc', 'web:v2', { replicas: 1, annotations: { [CANARY_OF]: 'web' } }) };
    canaryRs.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web-canary', uid: 'canary-uid', controller: true }];
    assert.equal(replicaSets?.workloadOf(canaryRs), 'web');
    assert.equal(replicaSets?.workloadOf(stable()), 'web');
  });
});

describe('CanaryWorkload batch sizes: Kruise\'s canary style rounds a percent up, with no stable pod kept', () => {
  it('sizes 90% of 5 as 5 canary pods, where the same step in place keeps one old pod (4)', () => {
    const doc = (extra: boolean) => ({
      apiVersion: KRUISE_API_VERSION, kind: 'Rollout', metadata: { name: 'web' },
      spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: { enableExtraWorkloadForCanary: extra, steps: [{ replicas: '90%' }, { replicas: '100%' }] } } },
    });
    assert.equal(stepTarget(parseRollout(doc(true), { cluster: 'c' }), 0, 5), 5);
    assert.equal(stepTarget(parseRollout(doc(false), { cluster: 'c' }), 0, 5), 4);
  });
});
