// The ShardSet's controller, in memory, for ./seventhKind.test.ts: it stores the workload, applies
// the driver's merge patches (checking resourceVersion, as the apiserver does) and, one step at a
// time, replaces the highest-ordinal pod at or above the partition that is not on the template's
// revision, never more than one pod unavailable at once.
import type { KubeObject, KubeWrite } from '../../../../shared/kube/types.ts';
import type { Observation } from '../../../../shared/workloads/driver.ts';
import { REVISION_LABEL, SHARDSET_API_VERSION, SHARDSET_KIND, revisionOfImage } from './shardSetDriver.ts';

interface Pod { ordinal: number; image: string; ready: boolean }

export class ShardSetController {
  private version = 1;
  private spec: { replicas: number; partition?: number; template: { spec: { containers: { name: string; image: string }[] } } };
  readonly pods: Pod[];
  /** Every partition the workload was patched to, in order (null: removed). */
  readonly partitions: (number | null)[] = [];

  constructor(replicas: number, image: string) {
    this.spec = { replicas, template: { spec: { containers: [{ name: 'app', image }] } } };
    this.pods = Array.from({ length: replicas }, (_, ordinal) => ({ ordinal, image, ready: true }));
  }

  get image(): string {
    return this.spec.template.spec.containers[0]!.image;
  }

  get partition(): number | undefined {
    return this.spec.partition;
  }

  /** `kubectl set image`: what starts a release. */
  setImage(image: string): void {
    this.spec = { ...this.spec, template: { spec: { containers: [{ name: 'app', image }] } } };
    this.version += 1;
  }

  observation(now: Date): Observation {
    const workload: KubeObject = {
      apiVersion: SHARDSET_API_VERSION, kind: 'ShardSet',
      metadata: { name: 'web', namespace: 'shop', resourceVersion: String(this.version) },
      spec: structuredClone(this.spec),
    } as KubeObject;
    const pods = this.pods.map((p): KubeObject => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: `web-${p.ordinal}`, namespace: 'shop', labels: { [REVISION_LABEL]: revisionOfImage(p.image) }, annotations: { image: p.image } },
      status: { ready: p.ready },
    } as KubeObject));
    return { namespace: 'shop', ref: { apiVersion: SHARDSET_API_VERSION, kind: SHARDSET_KIND, name: 'web' }, workload, children: [], pods, now };
  }

  apply(writes: readonly KubeWrite[]): void {
    for (const w of writes) {
      if (w.verb !== 'patch' || w.patchType !== 'merge') throw new Error(`unexpected write ${JSON.stringify(w)}`);
      if (w.resourceVersion !== undefined && w.resourceVersion !== String(this.version)) throw new Error('conflict: stale resourceVersion');
      const patch = (w.patch as { spec: { partition?: number | null; template?: ShardSetController['spec']['template'] } }).spec;
      const next = { ...this.spec };
      if ('partition' in patch) {
        if (patch.partition === null) delete next.partition;
        else next.partition = patch.partition;
        this.partitions.push(patch.partition ?? null);
      }
      if (patch.template) next.template = patch.template;
      this.spec = next;
      this.version += 1;
    }
  }

  /** One step of the controller. */
  settle(): void {
    const starting = this.pods.find((p) => !p.ready);
    if (starting) {
      starting.ready = true;
      return;
    }
    const from = this.spec.partition ?? 0;
    const next = this.pods.filter((p) => p.ordinal >= from && p.image !== this.image).sort((a, b) => b.ordinal - a.ordinal)[0];
    if (next) Object.assign(next, { image: this.image, ready: false });
  }
}
