// The reconcile pipeline over in-memory fakes (state store, cluster, publisher) with a Deployment
// `web` and its ReplicaSet as the apiserver would hold them after a finished native rollout.
import { Meter } from '../../../shared/meter.ts';
import { reconcile, type ReconcileResult } from '../../../shared/reconcile/reconcile.ts';
import { type ReconcileDeps } from '../../../shared/reconcile/deps.ts';
import type { KubeObject, ObjectRef } from '../../../shared/kube/types.ts';
import type { Command, CommandBody, RolloutKey } from '../../../shared/rollout/types.ts';
import { deploymentDriver } from '../../../shared/workloads/deployment/driver.ts';
import { revisionId } from '../../../shared/workloads/deployment/revision.ts';
import { CollectingPublisher } from '../../../bench/testbed/fakes/collectingPublisher.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { rolloutSpec } from '../../support/sim/scenario.ts';

export const KEY: RolloutKey = { cluster: 'local', namespace: 'default', name: 'web' };
export const DEPLOYMENT: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
const REPLICAS = 4;

export class Pipeline {
  readonly meter = new Meter();
  readonly clock = { now: () => new Date('2026-11-30T10:00:00.000Z') };
  readonly store: MemoryStateStore;
  readonly cluster = new MemoryCluster(this.meter);
  readonly events = new CollectingPublisher();
  private commandSeq = 0;

  constructor(store?: MemoryStateStore) {
    this.store = store ?? new MemoryStateStore({ clock: this.clock, meter: this.meter });
  }

  /** SPEC stored (unless `spec: false`) and a ready Deployment running `image` (held unless `paused: false`). */
  static async start(opts: { spec?: boolean; paused?: boolean; image?: string; store?: MemoryStateStore } = {}): Promise<Pipeline> {
    const p = new Pipeline(opts.store);
    if (opts.spec !== false) await p.store.putSpec(KEY, rolloutSpec(), { kind: 'Rollout' }, 0);
    const d = p.cluster.put(deployment(opts.image ?? 'web:v1', opts.paused ?? true));
    p.cluster.put(replicaSet(d, opts.image ?? 'web:v1'));
    return p;
  }

  deps(extra: Partial<ReconcileDeps> = {}): ReconcileDeps {
    return {
      store: this.store,
      clusters: { client: async () => this.cluster },
      drivers: { Deployment: deploymentDriver },
      events: this.events,
      clock: this.clock,
      meter: this.meter,
      ...extra,
    };
  }

  reconcile(extra: Partial<ReconcileDeps> = {}): Promise<ReconcileResult> {
    return reconcile(KEY, this.deps(extra));
  }

  command(body: CommandBody): Promise<'recorded' | 'duplicate'> {
    this.commandSeq += 1;
    return this.store.recordCommand(KEY, { ...body, id: `c${this.commandSeq}`, at: this.clock.now().toISOString(), by: 'tester' } as Command);
  }

  /** A user changes the Deployment's image (kubectl set image). */
  setImage(image: string): void {
    const d = this.cluster.object(DEPLOYMENT) as KubeObject;
    this.cluster.put({ ...d, spec: { ...d.spec, template: template(image) }, metadata: { ...d.metadata, generation: (d.metadata.generation ?? 1) + 1 } });
  }
}

/** A crash point hook that throws at `point` (the process dies there). */
export function dieAt(point: string): (p: string) => void {
  return (p) => {
    if (p === point) throw new Error(`simulated crash at ${point}`);
  };
}

function template(image: string): Record<string, unknown> {
  return { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } };
}

function deployment(image: string, paused: boolean): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', generation: 1, labels: { app: 'web' } },
    spec: {
      replicas: REPLICAS,
      paused,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: template(image),
    },
    status: { observedGeneration: 1, replicas: REPLICAS, updatedReplicas: REPLICAS, readyReplicas: REPLICAS, availableReplicas: REPLICAS },
  };
}

function replicaSet(owner: KubeObject, image: string): KubeObject {
  const hash = revisionId(template(image));
  const labels = { app: 'web', 'pod-template-hash': hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${hash}`, namespace: 'default', generation: 1, labels,
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: owner.metadata.uid ?? '', controller: true }],
    },
    spec: { replicas: REPLICAS, selector: { matchLabels: labels }, template: { ...template(image), metadata: { labels } } },
    status: { observedGeneration: 1, replicas: REPLICAS, readyReplicas: REPLICAS, availableReplicas: REPLICAS },
  };
}
