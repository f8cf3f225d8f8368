// `rollouts apply -f rollout.yaml`: store Rollout documents through the API (create or update).
import type { Command } from 'commander';
import { isRecord } from '../../json.ts';
import { ApiError } from '../../client/client.ts';
import { readDocuments } from '../documents.ts';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT, type CliIO } from '../io.ts';
import { TARGET_HELP, addTargetOptions, describeApiError, keyOf, withApi, type TargetFlags } from '../options.ts';

interface ApplyFlags extends TargetFlags {
  file: string;
}

/** metadata.name and metadata.namespace of a document (the server validates the rest). */
function identity(value: unknown, defaultNamespace: string): { name: string; namespace: string } | null {
  const meta = isRecord(value) && isRecord(value.metadata) ? value.metadata : {};
  if (typeof meta.name !== 'string' || meta.name === '') return null;
  return { name: meta.name, namespace: typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : defaultNamespace };
}

async function apply(flags: ApplyFlags, io: CliIO): Promise<void> {
  const docs = await readDocuments(flags.file, io);
  await withApi(io, flags, async ({ client, cluster }) => {
    let failed = 0;
    for (const doc of docs) {
      const where = docs.length > 1 ? `document ${doc.index}: ` : '';
      const id = identity(doc.value, flags.namespace);
      if (!id) {
        io.err(`${where}metadata.name: required\n`);
        failed++;
        continue;
      }
      try {
        const res = await client.apply(keyOf(id.name, { ...flags, namespace: id.namespace }, cluster), doc.value);
        io.out(`rollout/${id.name} ${res.unchanged ? 'unchanged' : res.specVersion === 1 ? 'created' : 'configured'}\n`);
      } catch (err) {
        // 400/422 name the fields; report them and go on with the other documents, as kubectl does.
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        io.err(`${describeApiError(err).split('\n').map((l) => `${where}${l}`).join('\n')}\n`);
        failed++;
      }
    }
    if (failed > 0) throw new CliExit(EXIT.failed, docs.length > 1 ? `${flags.file}: ${failed} of ${docs.length} document(s) not applied` : '');
  });
}

export function register(program: Command, io: CliIO): void {
  addTargetOptions(
    program
      .command('apply')
      .description('create or update Rollouts from a YAML/JSON file (Kruise v1beta1 or ours)')
      .requiredOption('-f, --file <rollout.yaml>', 'file with one or more Rollout documents'),
  )
    .addHelpText('after', `${TARGET_HELP}\n${examplesHelp([
      ['rollouts apply -f examples/rollout.yaml', 'prints "rollout/web created" (then "configured" or "unchanged")'],
      ['rollouts apply -f rollout.yaml --endpoint https://abc.lambda-url.eu-west-1.on.aws/ --cluster prod', 'against a deployed stack'],
    ])}`)
    .action((flags: ApplyFlags) => apply(flags, io));
}
