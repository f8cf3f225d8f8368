// A deliberately broken product, for the tests that show the invariant watchers catch what they
// are for (test/integration/soak.replays.test.ts): the product's own cluster client (the
// ClusterProvider of its ReconcileDeps, the test-only seam: the product runs unchanged) with one
// fault of behaviour added to what the product writes, each the bug class a watcher rule exists for:
//  - 'scaleDownBeforeAvailable': whenever the product makes a ReplicaSet ask for more pods, the other
//    active ReplicaSet of the Deployment is scaled down by as many at once, without waiting for the
//    new pods to be Available (the class of 16a3d62: an old pod deleted below the budget);
//  - 'extraPod': once armed, the next request of the product is preceded by one more pod asked of
//    the ReplicaSet running `image` (a pod without approval).
import type { ClusterClient, ClusterProvider } from '../../shared/ports.ts';
import type { KubeObject, KubeWrite } from '../../shared/kube/types.ts';

export type BrokenBehaviour = { kind: 'scaleDownBeforeAvailable' } | { kind: 'extraPod'; image: string; namespace: string };

export class BrokenProduct implements ClusterProvider {
  private armed = false;
  /** Writes the broken behaviour added. */
  readonly added: string[] = [];

  constructor(private readonly inner: ClusterProvider, private readonly behaviour: BrokenBehaviour) {}

  /** 'extraPod': the next request of the product adds the pod. */
  arm(): void {
    this.armed = true;
  }

  async client(cluster: string): Promise<ClusterClient> {
    const client = await this.inner.client(cluster);
    const before = async (): Promise<void> => {
      if (this.behaviour.kind !== 'extraPod' || !this.armed) return;
      this.armed = false;
      await this.extraPod(client, this.behaviour.namespace, this.behaviour.image);
    };
    return {
      get: async (ref) => { await before(); return client.get(ref); },
      list: async (...args) => { await before(); return client.list(...args); },
      write: async (w) => {
        await before();
        const prior = this.behaviour.kind === 'scaleDownBeforeAvailable' && w.verb === 'patch' && w.ref.kind === 'ReplicaSet' ? await client.get(w.ref) : null;
        const stored = await client.write(w);
        if (prior) await this.scaleDownOthers(client, w, Number(prior.spec?.replicas ?? 0));
        return stored;
      },
    };
  }

  private async extraPod(client: ClusterClient, namespace: string, image: string): Promise<void> {
    const rs = (await client.list('apps/v1', 'ReplicaSet', namespace, '')).find((o) => imageOf(o) === image);
    if (!rs) return;
    const replicas = Number(rs.spec?.replicas ?? 0) + 1;
    await client.write({ verb: 'patch', ref: refOf(rs), patchType: 'merge', patch: { spec: { replicas } }, reason: 'broken product (test seam): one pod more' });
    this.added.push(`${rs.metadata.name} → ${replicas}`);
  }

  private async scaleDownOthers(client: ClusterClient, w: KubeWrite, before: number): Promise<void> {
    if (w.verb !== 'patch' || w.dryRun || w.precondition) return;
    const asked = (w.patch as { spec?: { replicas?: unknown } } | null)?.spec?.replicas;
    if (typeof asked !== 'number') return;
    const grew = asked - before;
    if (grew <= 0) return;
    const all = await client.list('apps/v1', 'ReplicaSet', w.ref.namespace, '');
    const other = all.filter((o) => o.metadata.name !== w.ref.name && Number(o.spec?.replicas ?? 0) > 0).sort((a, b) => Number(b.spec?.replicas) - Number(a.spec?.replicas))[0];
    if (!other) return;
    const replicas = Math.max(0, Number(other.spec?.replicas) - grew);
    await client.write({ verb: 'patch', ref: refOf(other), patchType: 'merge', patch: { spec: { replicas } }, reason: 'broken product (test seam): old pods down before the new are Available' });
    this.added.push(`${other.metadata.name} → ${replicas}`);
  }
}

function imageOf(o: KubeObject): string | undefined {
  return (o.spec?.template as { spec?: { containers?: { image?: string }[] } } | undefined)?.spec?.containers?.[0]?.image;
}

function refOf(o: KubeObject): { apiVersion: string; kind: string; namespace: string; name: string } {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: o.metadata.namespace ?? '', name: o.metadata.name };
}
