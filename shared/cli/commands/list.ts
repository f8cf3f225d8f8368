// `rollouts list`: the rollouts of a namespace (or of every namespace with -A) in the cluster.
import type { Command } from 'commander';
import { examplesHelp } from '../help.ts';
import type { CliIO } from '../io.ts';
import { TARGET_HELP, addOutputOption, addTargetOptions, withApi, type OutputFlags, type TargetFlags } from '../options.ts';
import { formatTable } from '../table.ts';
import { factsOfSummary, rolloutStatus } from '../../client/status.ts';

interface ListFlags extends TargetFlags, OutputFlags {
  allNamespaces?: boolean;
}

export function register(program: Command, io: CliIO): void {
  addOutputOption(addTargetOptions(
    program
      .command('list')
      .description('list rollouts with their status and step')
      .option('-A, --all-namespaces', 'every namespace of the cluster'),
  ))
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts list', 'rollouts in namespace default'],
      ['rollouts list -A -o json', 'every namespace, as JSON'],
    ])}`)
    .action((flags: ListFlags) =>
      withApi(io, flags, async ({ client, cluster }) => {
        const res = await client.list({ cluster, ...(flags.allNamespaces ? {} : { namespace: flags.namespace }) });
        if (flags.output === 'json') return io.out(`${JSON.stringify(res, null, 2)}\n`);
        if (res.rollouts.length === 0) return io.out(`no rollouts in ${flags.allNamespaces ? 'any namespace' : `namespace ${flags.namespace}`} of cluster ${cluster}\n`);
        const head = [...(flags.allNamespaces ? ['NAMESPACE'] : []), 'NAME', 'WORKLOAD', 'STATUS', 'STEP', 'MESSAGE'];
        const rows = res.rollouts.map((r) => [
          ...(flags.allNamespaces ? [r.rollout.namespace] : []),
          r.rollout.name,
          `${r.workload.kind}/${r.workload.name}`,
          rolloutStatus(factsOfSummary(r)).text,
          r.step ? `${r.step.index + 1}/${r.step.total}` : '-',
          r.message,
        ]);
        io.out(`${formatTable([head, ...rows])}\n`);
      }));
}
