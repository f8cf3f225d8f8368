// The benchmark's own eye on one named object of any resource (admin watch), as DeploymentWatch is
// for Deployments: the first moment a condition holds, as the wall-clock time its watch event
// arrived. The peers area reads Argo's and Kruise's Rollout status through it.
import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';

export class ObjectWatch<T extends KubernetesObject> {
  private latest: T | null = null;
  private waiters: { test: (o: T) => boolean; resolve: (at: number) => void }[] = [];
  private abort: AbortController | null = null;

  private constructor(private readonly what: string) {}

  /** `collection`: the namespaced collection's path, e.g. /apis/argoproj.io/v1alpha1/namespaces/ns/rollouts. */
  static async start<T extends KubernetesObject>(kc: KubeConfig, collection: string, name: string): Promise<ObjectWatch<T>> {
    const w = new ObjectWatch<T>(`${collection}/${name}`);
    w.abort = await new Watch(kc).watch(collection, { fieldSelector: `metadata.name=${name}` }, (type, obj: T) => {
      if (type === 'BOOKMARK' || type === 'DELETED') return;
      w.latest = obj;
      w.check(Date.now());
    }, () => undefined);
    return w;
  }

  /**
   * Resolves with Date.now() of the first event from now on for which `test` holds. `test` sees every event in order, so it may keep state (e.g. "went Progressing, then Healthy").
   */
  when(test: (o: T) => boolean, timeoutMs: number, what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} of ${this.what}`)), timeoutMs);
      this.waiters.push({ test, resolve: (at) => { clearTimeout(timer); resolve(at); } });
    });
  }

  current(): T | null {
    return this.latest;
  }

  stop(): void {
    this.abort?.abort();
  }

  private check(at: number): void {
    const o = this.latest;
    if (!o) return;
    const done = this.waiters.filter((w) => w.test(o));
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) w.resolve(at);
  }
}
