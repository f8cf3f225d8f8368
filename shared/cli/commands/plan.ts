// `rollouts plan`: preview every batch of a release before starting it.
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { ValidationError } from '../../errors.ts';
import { previewBatches } from '../../rollout/preview.ts';
import type { ReleasePreview } from '../../rollout/preview.ts';
import { parseRollout } from '../../rollout/spec.ts';
import type { Step, WorkloadKind } from '../../rollout/types.ts';
import { WORKLOAD_KINDS, describeWorkloadType, workloadTypeOf } from '../../rollout/workloadKinds.ts';
import { readDocuments } from '../documents.ts';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT } from '../io.ts';
import type { CliIO } from '../io.ts';
import { STEPS_SYNTAX_HELP, parseStepsOption } from '../stepsOption.ts';
import { formatTable } from '../table.ts';
import { printIssues } from './validate.ts';

interface PlanOptions {
  replicas: number;
  kind?: WorkloadKind;
  steps?: Step[];
  file?: string;
  json?: boolean;
}

function replicasArg(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('must be a whole number >= 0.');
  return Number(value);
}

function stepsArg(value: string): Step[] {
  try {
    return parseStepsOption(value);
  } catch (err) {
    if (err instanceof ValidationError) throw new InvalidArgumentError(err.issues.map((i) => `${i.path}: ${i.reason}`).join('; '));
    throw err;
  }
}

/** The table form: a header line, then one row per batch. */
export function formatPlan(header: string, preview: ReleasePreview): string {
  const rows = [
    ['STEP', 'REPLICAS', 'UPDATED', 'STABLE', 'PAUSE'],
    ...preview.batches.map((b) => [String(b.step), String(b.replicas), String(b.updated), String(b.stable), b.pause]),
  ];
  return `${header}\n\n${formatTable(rows)}\n`;
}

async function plan(opts: PlanOptions, command: Command, io: CliIO): Promise<void> {
  let kind: WorkloadKind;
  let steps: Step[];
  let header: string;
  // A canary workload (enableExtraWorkloadForCanary) keeps every stable pod; --kind/--steps are in place.
  let inPlace = true;
  if (opts.file !== undefined) {
    if (opts.kind !== undefined || opts.steps !== undefined) {
      command.error('error: --kind and --steps come from the file; do not combine them with -f', { exitCode: EXIT.usage, code: 'rollouts.usage' });
    }
    const docs = await readDocuments(opts.file, io);
    if (docs.length !== 1) throw new CliExit(EXIT.failed, `error: ${opts.file}: plan takes one Rollout document, found ${docs.length}`);
    try {
      const spec = parseRollout(docs[0]?.value, { cluster: 'local' });
      kind = spec.workloadRef.kind;
      steps = spec.steps;
      inPlace = spec.rollingStyle !== 'CanaryWorkload';
      header = `Rollout: ${spec.namespace}/${spec.name}  Workload: ${kind} ${spec.workloadRef.name}  ${countLabel(kind)}: ${opts.replicas}`;
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      printIssues(io, err.issues, '');
      throw new CliExit(EXIT.failed);
    }
  } else {
    if (opts.kind === undefined || opts.steps === undefined) {
      command.error('error: give --kind and --steps, or -f <rollout.yaml>', { exitCode: EXIT.usage, code: 'rollouts.usage' });
    }
    kind = opts.kind;
    steps = opts.steps;
    header = `Kind: ${kind}  ${countLabel(kind)}: ${opts.replicas}`;
  }
  const preview = previewBatches(kind, opts.replicas, steps, inPlace);
  io.out(opts.json ? `${JSON.stringify(preview)}\n` : formatPlan(header, preview));
}

/** A DaemonSet's batches count pods on nodes: N is the nodes it schedules. */
function countLabel(kind: WorkloadKind): string {
  return workloadTypeOf(kind).counts === 'nodes' ? 'Nodes' : 'Replicas';
}

const KINDS_HELP = `Kinds (and the workloadRef each names): ${WORKLOAD_KINDS.map(describeWorkloadType).join(', ')}.
For DaemonSet and AdvancedDaemonSet, --replicas is the number of nodes the DaemonSet schedules.`;

export function register(program: Command, io: CliIO): void {
  program
    .command('plan')
    .description('preview every batch of a release: pods updated and kept stable at each step')
    .requiredOption('--replicas <n>', 'replicas of the workload (N; nodes for a DaemonSet)', replicasArg)
    .addOption(new Option('--kind <kind>', 'workload kind (with --steps)').choices(WORKLOAD_KINDS))
    .option('--steps <list>', 'steps, e.g. 1,50%,100% (see below)', stepsArg)
    .option('-f, --file <rollout.yaml>', 'take kind and steps from a Rollout file instead')
    .option('--json', 'print JSON instead of a table')
    .addHelpText('after', `\n${STEPS_SYNTAX_HELP}\n${KINDS_HELP}\n${examplesHelp([
      ['rollouts plan --kind Deployment --replicas 10 --steps 1,50%,100%', 'three batches on a 10-replica Deployment'],
      ['rollouts plan --kind StatefulSet --replicas 5 --steps 20%:60s,60%:approval,100% --json', 'timed pause, then approval; JSON output'],
      ['rollouts plan --kind DaemonSet --replicas 6 --steps 1,50%,100%', 'a DaemonSet on 6 nodes: 1, then 3, then 6 nodes'],
      ['rollouts plan --kind AdvancedStatefulSet --replicas 4 --steps 1,50%,100%', 'a Kruise Advanced StatefulSet (apps.kruise.io/v1beta1)'],
      ['rollouts plan -f examples/rollout.yaml --replicas 10', 'the steps of a Rollout file'],
    ])}`)
    .action((opts: PlanOptions, command: Command) => plan(opts, command, io));
}
