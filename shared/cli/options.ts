// Options shared by the verbs that talk to the API (kubectl's conventions), and the one place where
// API failures become exit codes: runtime failures are one line on stderr and exit 1.
import { Option, type Command } from 'commander';
import type { RolloutKey } from '../rollout/types.ts';
import { ApiError, ApiUnreachableError } from '../client/client.ts';
import { CliExit, EXIT, type CliIO } from './io.ts';
import { runtimeOf, type CliRuntime } from './runtime.ts';
import { resolveTarget, type ResolvedTarget } from './target.ts';

export interface TargetFlags {
  namespace: string;
  cluster?: string;
  endpoint?: string;
}

export interface OutputFlags {
  output: 'text' | 'json';
}

export const TARGET_HELP = `
Target:
  local mode (\`npm start\`) when <data dir>/endpoint exists (data dir: ./.rollouts or $ROLLOUTS_HOME),
  or a deployed stack with --endpoint / ROLLOUTS_ENDPOINT (SigV4 with your AWS credentials;
  --cluster / ROLLOUTS_CLUSTER names the registered cluster).`;

export function addTargetOptions(cmd: Command): Command {
  return cmd
    .option('-n, --namespace <ns>', 'namespace of the rollout', 'default')
    .option('--cluster <name>', 'cluster the rollout is in (default: $ROLLOUTS_CLUSTER, else "local" in local mode with one cluster; required with serve --clusters N)')
    .option('--endpoint <url>', 'API of a deployed stack (default: $ROLLOUTS_ENDPOINT, else local mode)');
}

export function addOutputOption(cmd: Command): Command {
  return cmd.addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'));
}

export function keyOf(name: string, flags: TargetFlags, cluster: string): RolloutKey {
  return { cluster, namespace: flags.namespace, name };
}

/** Resolves the target, runs `fn`, and turns API failures into one-line errors with exit code 1. */
export async function withApi<T>(io: CliIO, flags: TargetFlags, fn: (target: ResolvedTarget, rt: CliRuntime) => Promise<T>): Promise<T> {
  const rt = runtimeOf(io);
  const target = await resolveTarget(flags, rt, io);
  try {
    return await fn(target, rt);
  } catch (err) {
    throw asCliExit(err, target);
  }
}

export function asCliExit(err: unknown, target: ResolvedTarget): unknown {
  if (err instanceof ApiError) return new CliExit(EXIT.failed, describeApiError(err), { cause: err });
  if (err instanceof ApiUnreachableError) {
    const hint = target.client.target.mode === 'local' ? ' (is local mode still running? `npm start`)' : '';
    return new CliExit(EXIT.failed, `error: ${err.message}${hint}`, { cause: err });
  }
  return err;
}

/** `<field>: <reason>` per issue of a 400/422, else `error: <message>`. */
export function describeApiError(err: ApiError): string {
  if (err.issues.length > 0) return err.issues.map((i) => `${i.path}: ${i.reason}`).join('\n');
  return `error: ${err.message}`;
}
