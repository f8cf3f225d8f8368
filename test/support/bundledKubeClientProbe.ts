// Entry point bundled by test/integration/kube-client.bundled.test.ts exactly as the Lambda
// functions are (infra/bundling.ts): the Kubernetes client without client-node's generated APIs
// and without undici. It reads its cluster from the environment, runs each kind of request once
// against it and prints what came back as one JSON line.
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import { tokenKubeConfig } from '../../shared/adapters/kubernetes/kubeConfigs.ts';
import type { KubeObject } from '../../shared/kube/types.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const namespace = env('PROBE_NAMESPACE');
const kc = tokenKubeConfig('probe', { server: env('PROBE_SERVER'), skipTLSVerify: true, token: env('PROBE_TOKEN') });
const client = new KubeClusterClient(kc);
const labels = { app: 'probe' };
const replicaSet: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'probe', namespace, labels },
  spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } } },
};

const path = `/apis/apps/v1/namespaces/${namespace}/replicasets`;
const version = await client.listVersion(path);
const seen: string[] = [];
const ended = new Promise<string>((resolve) => {
  void client.watch(path, { resourceVersion: version }, (type, obj) => {
    seen.push(`${type} ${obj.metadata.name}`);
    if (type === 'MODIFIED') handle.then((h) => h.stop());
  }, (err) => resolve(err === null ? 'normal' : err.name)).then((h) => resolveHandle(h));
});
let resolveHandle!: (h: { stop(): void }) => void;
const handle = new Promise<{ stop(): void }>((resolve) => (resolveHandle = resolve));
const created = await client.write({ verb: 'create', object: replicaSet, reason: 'probe' });
const patched = await client.write({ verb: 'patch', ref: { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace, name: 'probe' }, patchType: 'merge', patch: { metadata: { annotations: { probed: 'yes' } } }, reason: 'probe' });
const listed = await client.list('apps/v1', 'ReplicaSet', namespace, 'app=probe');
const missing = await client.get({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace, name: 'absent' });
const watchEnd = await ended;
process.stdout.write(`${JSON.stringify({ created: created?.metadata.creationTimestamp, patched: patched?.metadata.annotations?.probed, listed: listed.map((o) => `${o.kind} ${o.metadata.name}`), missing, seen, watchEnd })}\n`);
