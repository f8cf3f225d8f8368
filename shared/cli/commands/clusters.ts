// `rollouts clusters list`: the registered clusters, how each is reached, and the labels and time
// zone fleets pick it and read its release windows by (shared/fleet/clusters.ts).
import type { Command } from 'commander';
import type { ClusterRegistration } from '../../ports.ts';
import { DEFAULT_CLUSTER_TIME_ZONE } from '../../fleet/clusters.ts';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, withApi, type OutputFlags, type TargetFlags } from '../options.ts';
import { formatTable } from '../table.ts';

type ClustersFlags = Pick<TargetFlags, 'endpoint'> & OutputFlags;

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
        const rows = [...res.clusters].sort((a, b) => a.name.localeCompare(b.name)).map((c) => [c.name, reachedBy(c), labelsOf(c), c.timeZone ?? `${DEFAULT_CLUSTER_TIME_ZONE} (default)`]);
        io.out(`${formatTable([['NAME', 'REACHED BY', 'LABELS', 'TIME ZONE'], ...rows])}\n`);
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
