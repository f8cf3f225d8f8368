// Which cluster local mode drives: the one of the user's kubeconfig (KUBECONFIG, else ~/.kube/config)
// when it answers /version, otherwise the sandbox. Checked once at start; the answer is printed in
// the banner so nobody releases to a cluster they did not mean.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig, Observable, VersionApi, type RequestContext, type ResponseContext } from '@kubernetes/client-node';

export type KubeconfigProbe =
  | { usable: true; kubeConfig: KubeConfig; source: string; context: string; server: string; version: string }
  | { usable: false; reason: string };

const PROBE_TIMEOUT_MS = 3000;

/** The kubeconfig files kubectl would read, or [] when there are none. */
export function kubeconfigFiles(env: Record<string, string | undefined>, home = os.homedir()): string[] {
  const fromEnv = env.KUBECONFIG;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv.split(path.delimiter).filter((f) => f !== '' && existsSync(f));
  const file = path.join(home, '.kube', 'config');
  return existsSync(file) ? [file] : [];
}

export async function probeKubeconfig(env: Record<string, string | undefined> = process.env): Promise<KubeconfigProbe> {
  const files = kubeconfigFiles(env);
  if (files.length === 0) return { usable: false, reason: 'there is no kubeconfig: KUBECONFIG is unset and ~/.kube/config does not exist' };
  const kc = new KubeConfig();
  try {
    // loadFromDefault merges the KUBECONFIG list as kubectl does; without files it would invent a
    // localhost:8080 cluster, which is why the files are checked first.
    kc.loadFromDefault();
  } catch (err) {
    return { usable: false, reason: `the kubeconfig ${files.join(', ')} cannot be read: ${message(err)}` };
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) return { usable: false, reason: `the kubeconfig ${files.join(', ')} has no current context` };
  try {
    const info = await kc.makeApiClient(VersionApi).getCode({ middleware: [timeout(PROBE_TIMEOUT_MS)], middlewareMergeStrategy: 'append' });
    return { usable: true, kubeConfig: kc, source: files.join(path.delimiter), context: kc.getCurrentContext(), server: cluster.server, version: info.gitVersion };
  } catch (err) {
    return { usable: false, reason: `the cluster of context "${kc.getCurrentContext()}" (${cluster.server}) does not answer /version: ${message(err)}` };
  }
}

function timeout(ms: number) {
  return {
    pre(ctx: RequestContext) {
      ctx.setSignal(AbortSignal.timeout(ms));
      return new Observable(Promise.resolve(ctx));
    },
    post(rsp: ResponseContext) {
      return new Observable(Promise.resolve(rsp));
    },
  };
}

function message(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`.split('\n')[0] ?? '';
}
