// A deliberately broken product, for the tests that show the invariant watchers catch what they
// are for (test/integration/soak.replays.test.ts): the product's own cluster client (the
// ClusterProvider of its ReconcileDeps, the test-only seam: the product runs unchanged) with one
// fault of behaviour added to what the product writes, each the bug class a watcher rule exists for:
//  - 'moveBatchNow': once armed (or at now()), the next request of the product is preceded by a batch move of one
//    pod that waits for nothing: the ReplicaSet running `image` asks for one pod more and the other
//    active one for one fewer at once, even while kube-controller-manager is away and the new pods
//    cannot be Available when it returns (the class of 16a3d62: an old pod deleted below the budget);
//  - 'extraPod': once armed, the next request of the product is preceded by the ReplicaSet running
//    `image` asked for `replicas` pods (pods without approval).
import type { ClusterClient, ClusterProvider } from '../../shared/ports.ts';
import type { KubeObject } from '../../shared/kube/types.ts';

export type BrokenBehaviour = { kind: 'moveBatchNow' | 'extraPod'; image: string; namespace: string; replicas?: number };

export class BrokenProduct implements ClusterProvider {
  private armed = false;
  /** Writes the broken behaviour added. */
  readonly added: string[] = [];

  constructor(private readonly inner: ClusterProvider, private readonly behaviour: BrokenBehaviour) {}

  /** The next request of the product does the broken thing first. */
  arm(): void {
    this.armed = true;
  }

  async client(cluster: string): Promise<ClusterClient> {
    const client = await this.inner.client(cluster);
    const before = async (): Promise<void> => {
      if (!this.armed) return;
      this.armed = false;
      await this.misbehave(client);
    };
    return {
      get: async (ref) => { await before(); return client.get(ref); },
      list: async (...args) => { await before(); return client.list(...args); },
      write: async (w) => { await before(); return client.write(w); },
    };
  }

  /** The broken thing now, with the product's client (e.g. at the end of its pass: ReconcileDeps.crashPoint 'after-persist'). */
  async now(cluster: string): Promise<void> {
    await this.misbehave(await this.inner.client(cluster));
  }

  private async misbehave(client: ClusterClient): Promise<void> {
    const { namespace, image } = this.behaviour;
    const all = await client.list('apps/v1', 'ReplicaSet', namespace, '');
    const mine = all.find((o) => imageOf(o) === image);
    if (!mine) return;
    const asked = Number(mine.spec?.replicas ?? 0);
    if (this.behaviour.kind === 'extraPod') {
      await this.scale(client, mine, this.behaviour.replicas ?? asked + 1, 'pods without approval');
      return;
    }
    const other = all.filter((o) => o !== mine && Number(o.spec?.replicas ?? 0) > 0).sort((a, b) => Number(b.spec?.replicas) - Number(a.spec?.replicas))[0];
    await this.scale(client, mine, asked + 1, 'a batch moved without waiting');
    if (other) await this.scale(client, other, Number(other.spec?.replicas) - 1, 'a batch moved without waiting');
  }

  private async scale(client: ClusterClient, rs: KubeObject, replicas: number, why: string): Promise<void> {
    await client.write({ verb: 'patch', ref: refOf(rs), patchType: 'merge', patch: { spec: { replicas } }, reason: `broken product (test seam): ${why}` });
    this.added.push(`${rs.metadata.name} → ${replicas}`);
  }
}

function imageOf(o: KubeObject): string | undefined {
  return (o.spec?.template as { spec?: { containers?: { image?: string }[] } } | undefined)?.spec?.containers?.[0]?.image;
}

function refOf(o: KubeObject): { apiVersion: string; kind: string; namespace: string; name: string } {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: o.metadata.namespace ?? '', name: o.metadata.name };
}
