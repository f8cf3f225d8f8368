// The benchmark's own eye on one Deployment (admin watch): the first moment a condition holds, as
// the wall-clock time its watch event arrived. Used for "all pods on the new template and
// available", the point where a native RollingUpdate is complete.
import { Watch, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';

export class DeploymentWatch {
  private latest: V1Deployment | null = null;
  private waiters: { test: (d: V1Deployment) => boolean; resolve: (at: number) => void }[] = [];
  private abort: AbortController | null = null;

  private constructor(private readonly kc: KubeConfig, private readonly namespace: string, private readonly name: string) {}

  static async start(kc: KubeConfig, namespace: string, name: string): Promise<DeploymentWatch> {
    const w = new DeploymentWatch(kc, namespace, name);
    w.abort = await new Watch(kc).watch(
      `/apis/apps/v1/namespaces/${namespace}/deployments`,
      { fieldSelector: `metadata.name=${name}` },
      (type, obj: V1Deployment) => {
        if (type === 'BOOKMARK' || type === 'DELETED') return;
        w.latest = obj;
        w.check(Date.now());
      },
      () => undefined,
    );
    return w;
  }

  /** Resolves with Date.now() of the first event (from now on) for which `test` holds. */
  when(test: (d: V1Deployment) => boolean, timeoutMs: number, what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} of ${this.namespace}/${this.name}`)), timeoutMs);
      this.waiters.push({ test, resolve: (at) => { clearTimeout(timer); resolve(at); } });
    });
  }

  stop(): void {
    this.abort?.abort();
  }

  private check(at: number): void {
    const d = this.latest;
    if (!d) return;
    const done = this.waiters.filter((w) => w.test(d));
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) w.resolve(at);
  }
}

/** Every replica runs `image` and is available, and the controller has seen the latest spec: `kubectl rollout status` done. */
export function rolledOutTo(image: string, replicas: number): (d: V1Deployment) => boolean {
  return (d) =>
    d.spec?.template?.spec?.containers[0]?.image === image &&
    (d.status?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    d.status?.updatedReplicas === replicas &&
    d.status?.availableReplicas === replicas &&
    d.status?.replicas === replicas;
}
