// `rollouts clusters list`: the registered clusters, how each is reached, and the labels and time
// zone fleets pick it and read its release windows by (shared/fleet/clusters.ts).
// `rollouts clusters deregister NAME [--wait]`: the cluster leaves, its fleet members handing their
// workloads back first (shared/fleet/leave.ts says when it is refused).
import { Option, type Command } from 'commander';
import { ApiError } from '../../client/client.ts';
import { formatDuration, parseDuration } from '../duration.ts';
import { CliExit, EXIT } from '../io.ts';
import type { ClusterRegistration } from '../../ports.ts';
import { DEFAULT_CLUSTER_TIME_ZONE } from '../../fleet/clusters.ts';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, withApi, type OutputFlags, type TargetFlags } from '../options.ts';
import { formatTable } from '../table.ts';

type ClustersFlags = Pick<TargetFlags, 'endpoint'> & OutputFlags;
type DeregisterFlags = Pick<TargetFlags, 'endpoint'> & OutputFlags & { wait?: boolean; timeout: number };

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export function register(program: Command, io: CliIO): void {
  const clusters = program.command('clusters').description('the registered clusters');
  addOutputOption(
    clusters
      .command('list')
      .description('list the registered clusters with their labels and time zone')
      .option('--endpoint <url>', 'API of a deployed stack (default: $ROLLOUTS_ENDPOINT, else local mode)'),
  )
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts clusters list', 'name, how it is reached, labels, time zone'],
      ['rollouts clusters list -o json', 'the registrations as JSON'],
    ])}`)
    .action((flags: ClustersFlags) =>
      // The listing spans every cluster: no --cluster to resolve (a deployed target would ask for one).
      withApi(io, { namespace: 'default', cluster: '*', ...flags }, async ({ client }) => {
        const res = await client.clusters();
        if (flags.output === 'json') return io.out(`${JSON.stringify(res, null, 2)}\n`);
        if (res.clusters.length === 0) return io.out('no clusters registered\n');
        const rows = [...res.clusters].sort((a, b) => a.name.localeCompare(b.name)).map((c) => [c.leaving ? `${c.name} (leaving)` : c.name, reachedBy(c), labelsOf(c), c.timeZone ?? `${DEFAULT_CLUSTER_TIME_ZONE} (default)`]);
        io.out(`${formatTable([['NAME', 'REACHED BY', 'LABELS', 'TIME ZONE'], ...rows])}\n`);
      }));
  addOutputOption(
    clusters
      .command('deregister <name>')
      .description('remove a cluster: its fleet members leave their fleets and hand their workloads back first; refused while one is mid-release or a rollout no fleet owns is there')
      .option('--wait', 'wait until the members have handed their workloads back and the registration is gone')
      .addOption(new Option('--timeout <duration>', 'with --wait: give up after this long (exit code 1)').argParser(parseDuration).default(DEFAULT_TIMEOUT_MS, '5m'))
      .option('--endpoint <url>', 'API of a deployed stack (default: $ROLLOUTS_ENDPOINT, else local mode)'),
  )
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts clusters deregister eu-2', 'eu-2 leaves its fleets (returns at once)'],
      ['rollouts clusters deregister eu-2 --wait', 'the same, and wait until the registration is gone'],
    ])}`)
    .action((name: string, flags: DeregisterFlags) =>
      withApi(io, { namespace: 'default', cluster: name, ...flags }, async ({ client }, rt) => {
        const res = await client.deregisterCluster(name);
        if (flags.output === 'json') io.out(`${JSON.stringify(res, null, 2)}\n`);
        else if (res.deregistered) io.out(`cluster/${name} deregistered\n`);
        else io.out(`cluster/${name} leaving: ${res.handingBack.map((k) => `${k.namespace}/${k.name}`).join(', ')} hand${res.handingBack.length === 1 ? 's its workload' : ' their workloads'} back first\n`);
        if (!flags.wait || res.deregistered) return;
        const started = rt.now().getTime();
        for (;;) {
          try {
            await client.cluster(name);
          } catch (err) {
            if (err instanceof ApiError && err.status === 404) break;
            throw err;
          }
          if (rt.now().getTime() - started >= flags.timeout) {
            throw new CliExit(EXIT.failed, `error: cluster/${name} was still leaving after ${formatDuration(flags.timeout)} (\`rollouts get NAME --cluster ${name}\` says why a member has not handed its workload back)`);
          }
          await rt.sleep(client.target.mode === 'local' ? 500 : 2000);
        }
        if (flags.output !== 'json') io.out(`cluster/${name} deregistered\n`);
      }));
}

function reachedBy(c: ClusterRegistration): string {
  if (c.eks) return `eks ${c.eks.clusterName} (${c.eks.region})`;
  if (c.endpoint) return c.endpoint.server;
  return '-';
}

/** kubectl's --show-labels form: k=v,k=v in key order; "-" for none. */
function labelsOf(c: ClusterRegistration): string {
  const entries = Object.entries(c.labels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}=${v}`).join(',');
}
