// A real Gateway API implementation in front of the kwok pods: Traefik v3 (scripts/build-dataplane.sh),
// run outside the cluster as kruise-manager is, reading Gateways, HTTPRoutes, Services and
// EndpointSlices through its own kubeconfig and proxying real requests to the pods' IPs
// (podResponders.ts). It listens on 127.0.0.1 only, and its user holds only what its Gateway API
// provider reads and writes (rules below): Traefik's own RBAC example
// (traefik/traefik:docs/content/reference/dynamic-configuration/kubernetes-gateway-rbac.yml, v3.7.13)
// narrowed to the informers and status updates of pkg/provider/kubernetes/gateway/client.go, and to
// the one namespace it watches.
import fs from 'node:fs';
import path from 'node:path';
import { ApiextensionsV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig, type V1PolicyRule } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { Daemon } from '../../../shared/adapters/local/controlplane/daemon.ts';
import { runKubectl } from '../../../shared/adapters/local/controlplane/kubectl.ts';
import { freePorts } from '../../../shared/adapters/local/controlplane/ports.ts';
import { httpProbe, waitUntilReady } from '../../../shared/adapters/local/controlplane/readiness.ts';
import { ConfigError } from '../../../shared/errors.ts';
import type { TestCluster } from '../kube.ts';
import { waitFor } from '../wait.ts';
import { locateDataPlane } from './assets.ts';

/** The static-token user Traefik runs as: start the cluster with `extraUsers: [TRAEFIK_USER]`. */
export const TRAEFIK_USER = { name: 'traefik-gateway', groups: [] as string[] };
export const GATEWAY_CLASS = 'traefik';
/** Traefik's Gateway API controller name (pkg/provider/kubernetes/gateway: controllerName). */
const CONTROLLER_NAME = 'traefik.io/gateway-controller';
const GATEWAY = 'traefik';
const GW_GROUP = 'gateway.networking.k8s.io';
const FIELD_MANAGER = 'rollouts-testbed';
const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 5_000;

/** Cluster-scoped reads: the namespace and GatewayClass informers, and the GatewayClass status. */
const CLUSTER_RULES: V1PolicyRule[] = [
  { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] },
  { apiGroups: [GW_GROUP], resources: ['gatewayclasses'], verbs: ['list', 'watch'] },
  { apiGroups: [GW_GROUP], resources: ['gatewayclasses/status'], verbs: ['update'] },
];

/** In the watched namespace: every informer of its WatchAll (listers only, no get), and the statuses it writes. */
const NAMESPACE_RULES: V1PolicyRule[] = [
  // Secrets and ConfigMaps: its informers must sync (TLS certificates, BackendTLSPolicy CA bundles), though none are used here.
  { apiGroups: [''], resources: ['services', 'configmaps', 'secrets'], verbs: ['list', 'watch'] },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
  { apiGroups: [GW_GROUP], resources: ['gateways', 'httproutes', 'grpcroutes', 'tlsroutes', 'referencegrants', 'backendtlspolicies'], verbs: ['list', 'watch'] },
  { apiGroups: [GW_GROUP], resources: ['gateways/status', 'httproutes/status'], verbs: ['update'] },
];

export interface AccessLogEntry {
  DownstreamStatus?: number;
  /** Traefik logs 502 here too for a refused or reset dial: not the pod's answer. */
  OriginStatus?: number;
  time?: string;
  ServiceAddr?: string;
  ServiceName?: string;
  RequestPath?: string;
}

export interface TraefikProxy {
  /** The web entrypoint (the Gateway's listener), http://127.0.0.1:<port>. */
  readonly url: string;
  readonly port: number;
  /** The Gateway every HTTPRoute of the namespace attaches to (spec.parentRefs: [{ name }]). */
  readonly gateway: string;
  readonly namespace: string;
  readonly daemon: Daemon;
  /** Every request it has proxied so far, from its JSON access log. */
  accessLog(): AccessLogEntry[];
  /** Requests the proxy answered 5xx because no pod answered (connection refused, reset, timed out). */
  connectionErrors(): AccessLogEntry[];
  stop(): Promise<void>;
}

/** The Gateway API CRDs of the standard channel, server-side applied (idempotent) and Established. */
export async function installGatewayApi(cluster: TestCluster): Promise<void> {
  const { gatewayApiCrdsDir } = locateDataPlane();
  const result = await runKubectl(cluster.kubeconfigPath('admin'), ['apply', '--server-side', `--field-manager=${FIELD_MANAGER}`, '--force-conflicts', '-f', gatewayApiCrdsDir]);
  if (result.code !== 0) throw new ConfigError(`installing the Gateway API CRDs failed: ${result.stderr.trim()}`);
  const extensions = cluster.admin.makeApiClient(ApiextensionsV1Api);
  for (const name of ['gatewayclasses', 'gateways', 'httproutes', 'grpcroutes', 'referencegrants', 'backendtlspolicies', 'tlsroutes']) {
    await waitFor(async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: `${name}.${GW_GROUP}` });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    }, { message: `CRD ${name}.${GW_GROUP} Established`, timeoutMs: READY_TIMEOUT_MS });
  }
}

async function ignoreExisting(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
  }
}

async function grantTraefik(admin: KubeConfig, namespace: string): Promise<void> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const subjects = [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: TRAEFIK_USER.name }];
  await ignoreExisting(() => rbac.createClusterRole({ body: { metadata: { name: TRAEFIK_USER.name }, rules: CLUSTER_RULES } }));
  await ignoreExisting(() => rbac.createClusterRoleBinding({
    body: { metadata: { name: TRAEFIK_USER.name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: TRAEFIK_USER.name }, subjects },
  }));
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name: TRAEFIK_USER.name }, rules: NAMESPACE_RULES } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: { metadata: { name: TRAEFIK_USER.name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: TRAEFIK_USER.name }, subjects },
  });
}

function writeTraefikKubeconfig(file: string, server: string, token: string): void {
  const name = `testplane-${TRAEFIK_USER.name}`;
  fs.writeFileSync(file, stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'testplane', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: 'testplane', user: name } }],
    'current-context': name,
  }), { mode: 0o600 });
}

/**
 * Starts Traefik for one namespace of the cluster: the Gateway API CRDs, its RBAC, the GatewayClass
 * and a Gateway whose one HTTP listener is Traefik's web entrypoint; resolves once the Gateway is
 * accepted. HTTPRoutes of the namespace attach with `parentRefs: [{ name: proxy.gateway }]`.
 */
export async function startTraefik(cluster: TestCluster, namespace: string): Promise<TraefikProxy> {
  const { traefik } = locateDataPlane();
  const token = cluster.extraTokens[TRAEFIK_USER.name];
  if (token === undefined) throw new ConfigError(`start the test cluster with extraUsers: [TRAEFIK_USER] (user ${TRAEFIK_USER.name}) to run Traefik`);
  await installGatewayApi(cluster);
  await grantTraefik(cluster.admin, namespace);
  const objects = cluster.admin.makeApiClient(CustomObjectsApi);
  await ignoreExisting(() => objects.createClusterCustomObject({
    group: GW_GROUP, version: 'v1', plural: 'gatewayclasses',
    body: { apiVersion: `${GW_GROUP}/v1`, kind: 'GatewayClass', metadata: { name: GATEWAY_CLASS }, spec: { controllerName: CONTROLLER_NAME } },
  }));
  const [port, pingPort] = (await freePorts(2)) as [number, number];
  // Traefik serves a Gateway listener on the entrypoint whose port is the listener's.
  await objects.createNamespacedCustomObject({
    group: GW_GROUP, version: 'v1', namespace, plural: 'gateways',
    body: {
      apiVersion: `${GW_GROUP}/v1`, kind: 'Gateway', metadata: { name: GATEWAY },
      spec: { gatewayClassName: GATEWAY_CLASS, listeners: [{ name: 'web', protocol: 'HTTP', port, allowedRoutes: { namespaces: { from: 'Same' } } }] },
    },
  });

  const dir = path.join(cluster.dataDir, `traefik-${namespace}`);
  fs.mkdirSync(dir, { recursive: true });
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeTraefikKubeconfig(kubeconfig, cluster.server, token);
  const accessLogPath = path.join(dir, 'access.log');
  const daemon = Daemon.start('traefik', traefik, [
    `--entrypoints.web.address=127.0.0.1:${port}`,
    `--entrypoints.traefik.address=127.0.0.1:${pingPort}`,
    '--ping=true',
    '--providers.kubernetesgateway=true',
    `--providers.kubernetesgateway.namespaces=${namespace}`,
    `--accesslog=true`,
    `--accesslog.filepath=${accessLogPath}`,
    '--accesslog.format=json',
    // No phoning home: this machine has no internet, and tests must not depend on it.
    '--global.checknewversion=false',
    '--global.sendanonymoususage=false',
    '--log.level=INFO',
  ], dir, { env: { KUBECONFIG: kubeconfig } });
  const stop = async (): Promise<void> => {
    await daemon.stop(STOP_GRACE_MS);
  };
  try {
    await waitUntilReady(httpProbe(`http://127.0.0.1:${pingPort}/ping`), { timeoutMs: READY_TIMEOUT_MS, what: 'GET /ping', daemon });
    await waitFor(async () => {
      const gw = await objects.getNamespacedCustomObject({ group: GW_GROUP, version: 'v1', namespace, plural: 'gateways', name: GATEWAY }) as { status?: { conditions?: { type: string; status: string }[] } };
      return gw.status?.conditions?.some((c) => c.type === 'Accepted' && c.status === 'True');
    }, { message: `Gateway ${namespace}/${GATEWAY} accepted by Traefik (log: ${daemon.logPath})`, timeoutMs: READY_TIMEOUT_MS });
  } catch (error) {
    await stop();
    throw error;
  }
  const accessLog = (): AccessLogEntry[] => {
    if (!fs.existsSync(accessLogPath)) return [];
    return fs.readFileSync(accessLogPath, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as AccessLogEntry);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    gateway: GATEWAY,
    namespace,
    daemon,
    accessLog,
    // The pods' responders only ever answer 200 (podResponders.ts): a 5xx is the proxy's own, no pod
    // answered. Traefik logs a refused or reset dial with OriginStatus 502 too, so that field tells nothing.
    connectionErrors: () => accessLog().filter((e) => (e.DownstreamStatus ?? 0) >= 500),
    stop,
  };
}
