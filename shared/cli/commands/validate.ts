// `rollouts validate -f rollout.yaml`: check Rollout documents without talking to any cluster.
import type { Command } from 'commander';
import type { FieldIssue } from '../../errors.ts';
import { ValidationError } from '../../errors.ts';
import { notYetRunnable } from '../../rollout/notYetRunnable.ts';
import { parseRollout } from '../../rollout/spec.ts';
import { providerIssues } from '../../traffic/registry.ts';
import type { RolloutSpec } from '../../rollout/types.ts';
import { readDocuments } from '../documents.ts';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT } from '../io.ts';
import type { CliIO } from '../io.ts';

/** One `<field path>: <reason>` line per issue (stdout: it is the command's answer), after `prefix`. */
export function printIssues(io: CliIO, issues: readonly FieldIssue[], prefix: string): void {
  for (const i of issues) io.out(`${prefix}${i.path}: ${i.reason}\n`);
}

/** The one-line summary of a valid Rollout. */
export function summarise(spec: RolloutSpec): string {
  const steps = spec.steps.map((s) => String(s.replicas)).join(' → ');
  const notYet = notYetRunnable(spec);
  const routing = spec.trafficRouting;
  const extras = [
    routing ? `traffic through ${routing.provider.type === 'gateway' ? `HTTPRoute ${routing.provider.httpRouteName}` : `Ingress ${routing.provider.name} (${routing.provider.classType})`}: ${spec.steps.map(trafficLabel).join(' → ')}` : '',
    spec.rollingStyle === 'BlueGreen' ? `blue-green: the old revision scaled down ${spec.scaleDownDelaySeconds ?? 0}s after the switch` : '',
    spec.windows.length > 0 ? `${spec.windows.length} release window(s)` : '',
    spec.progressDeadlineSeconds !== null ? `deadline ${spec.progressDeadlineSeconds}s per batch` : '',
    notYet.length > 0 ? `valid, but apply refuses it until serverless-rollouts runs ${notYet.map((i) => i.path).join(', ')} (docs/traffic.md)` : '',
  ].filter(Boolean);
  return `Rollout ${spec.namespace}/${spec.name} → ${spec.workloadRef.kind} ${spec.workloadRef.name}, ` +
    `${spec.steps.length} step(s): ${steps}${extras.map((e) => `; ${e}`).join('')}`;
}

/** A step's routing for people: "10%", "2 match(es)", "-" (the original routing). */
function trafficLabel(step: RolloutSpec['steps'][number]): string {
  if (!step.traffic) return '-';
  return step.traffic.matches.length > 0 ? `${step.traffic.matches.length} match(es)` : `${step.traffic.weight ?? 0}%`;
}

async function validate(opts: { file: string; namespace?: string }, io: CliIO): Promise<void> {
  const docs = await readDocuments(opts.file, io);
  const many = docs.length > 1;
  let invalid = 0;
  const summaries: string[] = [];
  for (const doc of docs) {
    const where = many ? `document ${doc.index}: ` : '';
    try {
      const spec = parseRollout(doc.value, { cluster: 'local', namespace: opts.namespace });
      // What the Rollout's router cannot do of what its steps ask (shared/traffic).
      const routerIssues = providerIssues(spec);
      if (routerIssues.length > 0) throw new ValidationError(routerIssues);
      summaries.push(`OK ${opts.file}${many ? ` (document ${doc.index})` : ''}: ${summarise(spec)}\n`);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      invalid++;
      printIssues(io, err.issues, where);
    }
  }
  if (invalid > 0) {
    throw new CliExit(EXIT.failed, `${opts.file}: ${invalid} of ${docs.length} document(s) invalid`);
  }
  for (const line of summaries) io.out(line);
}

export function register(program: Command, io: CliIO): void {
  program
    .command('validate')
    .description('check Rollout documents (Kruise v1beta1 or ours) and list every problem with its field path')
    .requiredOption('-f, --file <rollout.yaml>', 'YAML or JSON file; every document in it is checked')
    .option('-n, --namespace <ns>', 'namespace for documents without metadata.namespace', 'default')
    .addHelpText('after', examplesHelp([
      ['rollouts validate -f examples/rollout.yaml', 'prints one OK line, exit code 0'],
      ['rollouts validate -f broken.yaml', 'prints "<field path>: <reason>" per problem, exit code 1'],
    ]))
    .action((opts: { file: string; namespace?: string }) => validate(opts, io));
}
