// `serve --clusters N` (N > 1): N sandbox control planes (sandbox.ts, each with the demo Deployment),
// registered as clusters c1..cN with the labels and time zones a fleet picks clusters by
// (docs/fleet.md): c1 is `ring=canary`, the others `ring=rest`, each in its own region, zone and
// time zone. Each plane persists under `<data dir>/fleet/<name>` as the one sandbox does under
// `<data dir>/sandbox`, and a restart finds the same clusters: the number of clusters is recorded
// beside them, and another number is refused rather than leaving stored fleets half orphaned.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { ConfigError } from '../errors.ts';
import type { ClusterRegistration } from '../ports.ts';
import { MAX_SANDBOX_CLUSTERS } from './clusterCount.ts';
import { startSandbox, type Sandbox } from './sandbox.ts';

/** Where each sandbox cluster lives, with its labels and zone: one row per cluster, c1 first. */
const PLACES = [
  { region: 'eu-west-1', timeZone: 'Europe/Dublin' },
  { region: 'us-east-1', timeZone: 'America/New_York' },
  { region: 'ap-southeast-2', timeZone: 'Australia/Sydney' },
  { region: 'eu-central-1', timeZone: 'Europe/Berlin' },
  { region: 'us-west-2', timeZone: 'America/Los_Angeles' },
] as const;

export interface SandboxClusterPlacement {
  name: string;
  labels: Record<string, string>;
  timeZone: string;
}

/** c1..cN with their labels: `ring=canary` on c1, `ring=rest` on the others, region, zone and env. */
export function sandboxClusterPlacements(count: number): SandboxClusterPlacement[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SANDBOX_CLUSTERS) throw new ConfigError(`sandbox clusters: ${count} is not from 1 to ${MAX_SANDBOX_CLUSTERS}`);
  return PLACES.slice(0, count).map((place, i) => ({
    name: `c${i + 1}`,
    labels: { ring: i === 0 ? 'canary' : 'rest', region: place.region, zone: `${place.region}a`, env: 'sandbox' },
    timeZone: place.timeZone,
  }));
}

/**
 * The registration of a sandbox cluster, as `PUT /v1/clusters/<name>` would store it. Its bearer
 * token is not stored: local mode hands it to the cluster provider (the product's least-privilege
 * user of that plane). The planes serve on loopback with a self-signed certificate, which the
 * testplane's own kubeconfigs skip verifying too (shared/adapters/local/controlplane/credentials.ts).
 */
export function sandboxRegistration(placement: SandboxClusterPlacement, server: string): ClusterRegistration {
  return { name: placement.name, endpoint: { server, insecureSkipTlsVerify: true }, labels: placement.labels, timeZone: placement.timeZone };
}

export interface SandboxFleetMember {
  placement: SandboxClusterPlacement;
  sandbox: Sandbox;
  registration: ClusterRegistration;
}

export interface SandboxFleet {
  members: SandboxFleetMember[];
  /** The product user's bearer token of each plane, by cluster name. */
  tokens: Record<string, string>;
  /** True when the clusters of an earlier start were started again. */
  restarted: boolean;
  /** A kubeconfig with one context per cluster (its admin), named after it; c1 current. */
  adminKubeconfig(): string;
  stop(): Promise<void>;
}

export interface SandboxFleetOptions {
  /** `<data dir>/fleet`: one directory per cluster, and the count file. */
  dir: string;
  count: number;
  fresh?: boolean;
  podReadyDelayMs?: number;
  log?: (line: string) => void;
}

/** Records and checks how many clusters the fleet sandbox in `dir` has. */
export async function claimClusterCount(dir: string, count: number): Promise<void> {
  const file = path.join(dir, 'clusters');
  const recorded = await readFile(file, 'utf8').then((s) => Number(s.trim()), () => null);
  if (recorded !== null && recorded !== count) {
    throw new ConfigError(`the sandbox in ${dir} has ${recorded} clusters; start it with --clusters ${recorded}, or start over with --clusters ${count} --fresh (which deletes its clusters and stored rollouts)`);
  }
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${count}\n`);
}

/**
 * Starts the planes one after the other (parallel starts on two cores only slowed each other, and
 * each picks its free ports alone). A failure stops the ones already started.
 */
export async function startSandboxFleet(opts: SandboxFleetOptions): Promise<SandboxFleet> {
  const log = opts.log ?? (() => {});
  if (opts.fresh) await rm(opts.dir, { recursive: true, force: true });
  await claimClusterCount(opts.dir, opts.count);
  const members: SandboxFleetMember[] = [];
  const stop = async (): Promise<void> => {
    const failures: string[] = [];
    for (const m of members.splice(0).reverse()) {
      await m.sandbox.stop().catch((err: unknown) => failures.push(`${m.placement.name}: ${err instanceof Error ? err.message : String(err)}`));
    }
    if (failures.length > 0) throw new ConfigError(`sandbox clusters did not stop cleanly: ${failures.join('; ')}`);
  };
  try {
    for (const placement of sandboxClusterPlacements(opts.count)) {
      const sandbox = await startSandbox({
        dir: path.join(opts.dir, placement.name),
        ...(opts.podReadyDelayMs === undefined ? {} : { podReadyDelayMs: opts.podReadyDelayMs }),
        log: (line) => log(`${placement.name}: ${line}`),
      });
      members.push({ placement, sandbox, registration: sandboxRegistration(placement, sandbox.plane.server) });
    }
  } catch (err) {
    await stop().catch((stopErr: unknown) => log(String(stopErr)));
    throw err;
  }
  const all = [...members];
  return {
    members: all,
    tokens: Object.fromEntries(all.map((m) => [m.placement.name, m.sandbox.plane.rolloutsToken])),
    restarted: all.every((m) => m.sandbox.restarted),
    adminKubeconfig: () => fleetKubeconfig(all.map((m) => ({ name: m.placement.name, server: m.sandbox.plane.server, token: m.sandbox.plane.adminToken }))),
    stop,
  };
}

/** One kubeconfig for kubectl over every cluster: `kubectl --context c2 get pods`. */
export function fleetKubeconfig(clusters: readonly { name: string; server: string; token: string }[]): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: clusters.map((c) => ({ name: c.name, cluster: { server: c.server, 'insecure-skip-tls-verify': true } })),
    users: clusters.map((c) => ({ name: `${c.name}-admin`, user: { token: c.token } })),
    contexts: clusters.map((c) => ({ name: c.name, context: { cluster: c.name, user: `${c.name}-admin` } })),
    'current-context': clusters[0]?.name ?? '',
  });
}
