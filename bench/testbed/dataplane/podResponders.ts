// The "containers" of kwok pods, for a real proxy to reach: for each pod of a namespace that has an IP
// (kwok gives pods addresses of a range the test bed makes local to this host: POD_CIDR in
// shared/adapters/local/controlplane/componentArgs.ts), a tiny HTTP server on <pod IP>:<each TCP containerPort> that answers with the pod's name and revision
// (its pod-template-hash label). A pod's servers start when it gets its IP and stop when the pod is
// gone, as a process in a real pod would: every open connection is cut then, so a request a proxy
// still sends there fails, and the proxy counts it.
import http from 'node:http';
import { BlockList, type Socket } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { POD_CIDR } from '../../../shared/adapters/local/controlplane/componentArgs.ts';
import { ConfigError } from '../../../shared/errors.ts';
import { watchPaths, type NamespaceWatch } from '../namespaceWatch.ts';

/** The pods' range and loopback: the only clients a responder answers (the range is local, never exposed on purpose). */
const LOCAL = new BlockList();
LOCAL.addSubnet('127.0.0.0', 8);
LOCAL.addSubnet(POD_CIDR.split('/')[0] as string, Number(POD_CIDR.split('/')[1]));

export const REVISION_LABEL = 'pod-template-hash';

/** What a responder answers (JSON body), and the header that carries the pod's name. */
export interface PodAnswer {
  pod: string;
  revision: string;
}
export const POD_HEADER = 'x-pod';

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { containers?: { ports?: { containerPort: number; protocol?: string }[] }[] };
  status?: { podIP?: string };
}

interface Responder {
  pod: string;
  address: string;
  server: http.Server;
  sockets: Set<Socket>;
}

export interface PodResponders {
  /** "<ip>:<port>" → pod name, for every responder listening now. */
  serving(): Map<string, string>;
  /** Requests answered so far, by pod name. */
  readonly answered: ReadonlyMap<string, number>;
  /** Problems (a port that could not be bound, a watch that failed); a test asserts there were none. */
  readonly problems: readonly string[];
  stop(): Promise<void>;
}

function listen(pod: string, revision: string, ip: string, port: number, answered: Map<string, number>): Promise<Responder> {
  const sockets = new Set<Socket>();
  const body = JSON.stringify({ pod, revision } satisfies PodAnswer);
  const server = http.createServer((req, res) => {
    answered.set(pod, (answered.get(pod) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json', [POD_HEADER]: pod, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.on('connection', (socket) => {
    if (!LOCAL.check(socket.remoteAddress?.replace(/^::ffff:/, '') ?? '')) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: ip, port, exclusive: true }, () => resolve({ pod, address: `${ip}:${port}`, server, sockets }));
  });
}

/** Closes the listener and cuts every connection at once, as the pod's process exiting would. */
function close(responder: Responder): Promise<void> {
  return new Promise((resolve) => {
    responder.server.close(() => resolve());
    for (const socket of responder.sockets) socket.destroy();
  });
}

/**
 * The pod IP range of each test file that serves pods on their IPs (ControlPlaneOptions.podCidr): one
 * /24 of POD_CIDR each, so that two of them running at once (npm test runs files two at a time) never
 * share an address. A new data-plane file takes the next one.
 */
export const DATA_PLANE_RANGES = {
  'dataplane.smoke': '198.18.1.0/24',
  'traffic.release': '198.18.2.0/24',
  // The traffic bench (bench/trafficApplied.ts), so it may run beside a test run's data-plane files.
  'bench.traffic': '198.18.3.0/24',
  'bluegreen.release': '198.18.4.0/24',
} as const;

/**
 * Whether this host accepts connections on the pods' range; else a ConfigError with the command that
 * makes it so (.ci/run runs it).
 */
export async function checkPodNetwork(): Promise<void> {
  const probe = `${POD_CIDR.split('.').slice(0, 2).join('.')}.255.254`;
  const server = http.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: probe, port: 0 }, () => resolve());
    });
  } catch (error) {
    throw new ConfigError(`the kwok pods' IPs (${POD_CIDR}) are not local to this host (${String(error)}); run: sudo ip route replace local ${POD_CIDR} dev lo`);
  } finally {
    server.close();
  }
}

/** Serves every pod of `namespace` on its IP, following the pods as they come and go, until stop(). */
export async function servePods(admin: KubeConfig, namespace: string): Promise<PodResponders> {
  await checkPodNetwork();
  const byAddress = new Map<string, Responder>();
  const answered = new Map<string, number>();
  const problems: string[] = [];
  // Pod events are applied one after another: a deleted pod's IP may be reused by the next pod.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): void => {
    queue = queue.then(work).catch((error: unknown) => void problems.push(String(error)));
  };

  const stopPod = async (name: string): Promise<void> => {
    for (const [address, responder] of [...byAddress]) {
      if (responder.pod !== name) continue;
      byAddress.delete(address);
      await close(responder);
    }
  };

  const servePod = async (pod: Pod): Promise<void> => {
    const ip = pod.status?.podIP;
    if (!ip) return;
    const revision = pod.metadata.labels?.[REVISION_LABEL] ?? '';
    const ports = (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []).filter((p) => (p.protocol ?? 'TCP') === 'TCP').map((p) => p.containerPort);
    for (const port of ports) {
      const address = `${ip}:${port}`;
      const current = byAddress.get(address);
      if (current?.pod === pod.metadata.name) continue;
      if (current) {
        // The address was another pod's (kwok reuses the IPs of deleted pods): that pod is gone.
        byAddress.delete(address);
        await close(current);
      }
      byAddress.set(address, await listen(pod.metadata.name, revision, ip, port, answered));
    }
  };

  let watch: NamespaceWatch | undefined;
  watch = await watchPaths<'pod', Pod>(admin, { pod: `/api/v1/namespaces/${namespace}/pods` }, (_kind, type, pod) => {
    if (type === 'DELETED') enqueue(() => stopPod(pod.metadata.name));
    else if (type !== 'BOOKMARK' && type !== 'ERROR') enqueue(() => servePod(pod));
  }, (message) => void problems.push(message));

  return {
    serving: () => new Map([...byAddress].map(([address, r]) => [address, r.pod])),
    answered,
    problems,
    async stop() {
      watch?.stop();
      watch = undefined;
      await queue;
      await Promise.all([...byAddress.values()].map(close));
      byAddress.clear();
    },
  };
}
