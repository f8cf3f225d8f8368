// What `rollouts serve` prints once everything is up: what runs where, and the next commands.
import path from 'node:path';
import type { LocalCluster } from './localMode.ts';
import type { DataDirPaths } from './dataDir.ts';

export interface BannerInput {
  endpoint: string;
  paths: DataDirPaths;
  cluster: LocalCluster;
  principal: string;
  podReadyDelayMs: number | null;
  sweepSeconds: number;
  resyncSeconds: number;
  /** Kinds watched, or null with the watches off. */
  watched: string[] | null;
  startupMs: number;
  cwd: string;
}

/** A path relative to the working directory when it is inside it (shorter, copy-pasteable). */
function shown(p: string, cwd: string): string {
  const rel = path.relative(cwd, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

export function renderBanner(b: BannerInput): string {
  const c = b.cluster;
  const dynamo = c.kind === 'sandbox' ? b.paths.sandboxDynamodb : c.kind === 'sandboxes' ? b.paths.fleetDynamodb : b.paths.dynamodb;
  const lines = [
    `serverless-rollouts local mode is up (${(b.startupMs / 1000).toFixed(1)} s)`,
    '',
    `  API       ${b.endpoint}  (in ${shown(b.paths.endpoint, b.cwd)}; commands are recorded as "${b.principal}")`,
    `  state     embedded DynamoDB (dynalite) in ${shown(dynamo, b.cwd)}`,
    `  engine    reconcile queue in process, sweep every ${b.sweepSeconds} s, every rollout resynced every ${b.resyncSeconds} s,`,
    `            ${b.watched ? `watches on ${b.watched.map((k) => `${k}s`).join(', ')}` : 'watches OFF (--no-watch)'}`,
  ];
  if (c.kind === 'sandbox') {
    const images = Object.entries(c.demo.images).map(([k, v]) => `${k}=${v}`).join(', ');
    lines.push(
      `  cluster   "local" = sandbox Kubernetes ${c.version} at ${c.server}`,
      `            (kwok nodes; pods become ready ${b.podReadyDelayMs ?? '?'} ms after scheduling;`,
      `            ${c.restarted ? 'started again with everything of the last run' : 'new'}; kept when serve stops: \`--fresh\` starts over)`,
      `            Deployment ${c.demo.namespace}/${c.demo.name}: ${c.demo.replicas} replicas, ${images}`,
    );
    if (c.why) lines.push(`            sandbox because ${c.why}`);
  } else if (c.kind === 'sandboxes') {
    lines.push(`  clusters  ${c.clusters.length} sandbox clusters (kwok nodes; pods become ready ${b.podReadyDelayMs ?? '?'} ms after scheduling;`,
      `            ${c.restarted ? 'started again with everything of the last run' : 'new'}; kept when serve stops: \`--fresh\` starts over),`,
      `            each with Deployment ${c.demo.namespace}/${c.demo.name}, registered with labels and time zone:`);
    for (const m of c.clusters) {
      lines.push(`    ${m.name.padEnd(4)} Kubernetes ${m.version} at ${m.server}  ${Object.entries(m.labels).map(([k, v]) => `${k}=${v}`).join(',')}  ${m.timeZone}`);
    }
  } else {
    lines.push(`  cluster   "local" = context "${c.context}" of ${c.source}: ${c.server} (Kubernetes ${c.version})`);
  }
  const contexts = c.kind === 'sandboxes' ? ` --context ${c.clusters[0]?.name ?? 'c1'}` : '';
  lines.push(`  kubectl   KUBECONFIG=${shown(b.paths.kubeconfig, b.cwd)} kubectl${contexts} get pods${contexts ? '   (one context per cluster)' : ''}`);
  lines.push('', 'Next, in another terminal:');
  if (c.kind === 'sandboxes') {
    const [container = 'app', image = 'nginx:1.27'] = Object.entries(c.demo.images)[0] ?? [];
    lines.push(
      '  npx rollouts fleet apply -f examples/fleet.yaml',
      `  npx rollouts fleet release ${c.demo.name} --image ${container}=${nextTag(image)}`,
      `  npx rollouts fleet get ${c.demo.name} --watch`,
      `  npx rollouts fleet approve ${c.demo.name}`,
    );
  } else if (c.kind === 'sandbox') {
    const [container = 'app', image = 'nginx:1.27'] = Object.entries(c.demo.images)[0] ?? [];
    lines.push(
      '  npx rollouts apply -f examples/rollout.yaml',
      `  npx rollouts release ${c.demo.name} --image ${container}=${nextTag(image)}`,
      `  npx rollouts get ${c.demo.name} --watch`,
      `  npx rollouts approve ${c.demo.name}`,
    );
  } else {
    lines.push('  kubectl apply -f examples/deployment.yaml   (if the cluster has no Deployment "web" yet)', '  npx rollouts apply -f examples/rollout.yaml', '  npx rollouts get web --watch');
  }
  lines.push('', 'Ctrl-C stops everything.', '');
  return lines.join('\n');
}

/** nginx:1.27 → nginx:1.28: a plausible next image for the example command. */
export function nextTag(image: string): string {
  const m = /^(.*:)(\d+)\.(\d+)$/.exec(image);
  return m ? `${m[1]}${m[2]}.${Number(m[3]) + 1}` : `${image.replace(/:[^:/]*$/, '')}:next`;
}
