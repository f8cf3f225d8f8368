// Command lines of the five components, after envtest's (controller-runtime's pkg/envtest) and
// kwokctl's. Everything listens on 127.0.0.1 only.
import { auditArgs, type AuditFiles } from './audit.ts';

export interface ComponentPorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
  /** kwok's kubelet server (exec, logs), which every fake node's InternalIP and kubelet port point at. */
  kwok: number;
}

export interface ComponentFiles {
  dataDir: string;
  etcdDataDir: string;
  certDir: string;
  tokenFile: string;
  serviceAccountPrivateKey: string;
  serviceAccountPublicKey: string;
  adminKubeconfig: string;
  kwokConfig: string;
  /** kwok's second --config (kwokConfig.ts writeKwokExtraConfig). */
  kwokExtraConfig: string;
  /** Set when the audit log is on (ControlPlaneOptions.auditLog). */
  audit?: AuditFiles;
}

/** The service range: fake, nothing routes it (no kube-proxy; a proxy under test reads EndpointSlices). */
export const SERVICE_CIDR = '10.96.0.0/24';
/**
 * Pod IPs: the benchmarking range of RFC 2544, which nothing on the Internet routes. The test bed makes
 * it local to this host (`ip route replace local 198.18.0.0/16 dev lo`, by .ci/run), so a test can
 * serve HTTP on a pod's own IP (bench/testbed/dataplane/podResponders.ts) and a real proxy reading the
 * pod's EndpointSlice reaches it. Not 127.0.0.0/8: the apiserver refuses loopback addresses in
 * EndpointSlices (ValidateEndpointIP). kwok hands out addresses from the range's first, and reuses
 * those of deleted pods.
 */
export const POD_CIDR = '198.18.0.0/16';
/**
 * Every fake node's InternalIP (and so every pod's hostIP): loopback, where kwok serves the kubelet
 * API, so the apiserver can reach it for `kubectl exec`.
 */
export const NODE_IP = '127.0.0.1';

export function etcdUrl(ports: ComponentPorts): string {
  return `http://127.0.0.1:${ports.etcdClient}`;
}

export function etcdArgs(ports: ComponentPorts, files: ComponentFiles): string[] {
  const client = etcdUrl(ports);
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  return [
    '--name=testplane',
    `--data-dir=${files.etcdDataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=testplane=${peer}`,
    // A throwaway cluster: durability buys nothing and fsync dominates write latency on CI disks.
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ];
}

export function apiserverArgs(ports: ComponentPorts, files: ComponentFiles): string[] {
  return [
    `--etcd-servers=${etcdUrl(ports)}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${ports.apiserver}`,
    // No --tls-cert-file: the apiserver self-signs into the cert dir; clients skip verification.
    `--cert-dir=${files.certDir}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${files.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${files.serviceAccountPrivateKey}`,
    `--token-auth-file=${files.tokenFile}`,
    '--authorization-mode=RBAC',
    // - ServiceAccount: pods run nowhere (kwok fakes them), so the plugin would only make every new
    //   namespace unusable until a controller creates its `default` ServiceAccount (envtest disables
    //   it for the same reason). The product never reads pod service accounts.
    // - TaintNodesByCondition: it taints every new Node not-ready:NoSchedule, and only the node
    //   lifecycle controller lifts that taint. We do not run that controller: it would also taint
    //   and evict whenever kwok's lease renewal lags on a loaded 2-core machine, i.e. flaky tests.
    '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
    '--allow-privileged=true',
    // No kubernetes Service endpoints: nothing in the cluster dials the apiserver by cluster IP.
    '--endpoint-reconciler-type=none',
    '--profiling=false',
    ...(files.audit ? auditArgs(files.audit) : []),
  ];
}

/**
 * Common flags for components that serve /healthz on a secure port (self-signed in memory) and talk to
 * the apiserver as admin.
 */
function clientComponentArgs(port: number, files: ComponentFiles): string[] {
  return [
    `--kubeconfig=${files.adminKubeconfig}`,
    `--authentication-kubeconfig=${files.adminKubeconfig}`,
    `--authorization-kubeconfig=${files.adminKubeconfig}`,
    // Nobody connects with client certificates, so do not look up (and log errors about) the
    // cluster's extension-apiserver-authentication ConfigMap, which has no CA to give here.
    '--authentication-skip-lookup=true',
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--authorization-always-allow-paths=/healthz,/readyz,/livez',
    '--profiling=false',
  ];
}

/**
 * The workload controllers under test, the two that clean up after deletes, and the EndpointSlice
 * controller, which gives a proxy under test (Traefik's Gateway API provider) the Ready pods of each
 * Service; nothing else.
 */
export const CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'endpointslice-controller',
];

export function controllerManagerArgs(ports: ComponentPorts, files: ComponentFiles): string[] {
  return [...clientComponentArgs(ports.controllerManager, files), `--controllers=${CONTROLLERS.join(',')}`];
}

export function schedulerArgs(ports: ComponentPorts, files: ComponentFiles): string[] {
  return clientComponentArgs(ports.scheduler, files);
}

export function kwokArgs(ports: ComponentPorts, files: ComponentFiles): string[] {
  // Management scope and stages come from --config; the flags repeat the scope so `ps` shows it.
  return [
    `--kubeconfig=${files.adminKubeconfig}`,
    `--config=${files.kwokConfig}`,
    `--config=${files.kwokExtraConfig}`,
    '--manage-all-nodes=false',
    '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
    // The nodes' kubelet endpoint is kwok's own server; the apiserver accepts its self-signed
    // certificate because no kubelet CA is configured.
    `--node-ip=${NODE_IP}`,
    `--node-port=${ports.kwok}`,
    `--server-address=${NODE_IP}:${ports.kwok}`,
  ];
}
