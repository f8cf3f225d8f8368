// `rollouts dashboard`: the web dashboard on http://127.0.0.1:3100/ until Ctrl-C (shared/dashboard/).
// It talks to the same API as every other verb: local mode, or a deployed stack with SigV4.
import { InvalidArgumentError, type Command } from 'commander';
import { examplesHelp } from '../help.ts';
import { CliExit, EXIT, type CliIO } from '../io.ts';
import { runtimeOf } from '../runtime.ts';
import { followLocalEndpoint, resolveTarget } from '../target.ts';

interface DashboardFlags {
  port: number;
  cluster?: string;
  endpoint?: string;
}

/** kubectl argo rollouts dashboard's port. */
export const DEFAULT_DASHBOARD_PORT = 3100;

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw new InvalidArgumentError('must be a port number from 0 to 65535.');
  return Number(value);
}

async function dashboard(flags: DashboardFlags, io: CliIO): Promise<void> {
  const rt = runtimeOf(io);
  // Every cluster unless --cluster names one: the dashboard is not about one rollout key.
  const { client } = await resolveTarget({ ...flags, cluster: flags.cluster ?? '' }, rt, io);
  const [{ buildDashboardAssets }, { startDashboard }] = await Promise.all([import('../../dashboard/assets.ts'), import('../../dashboard/server.ts')]);
  const assets = await buildDashboardAssets();
  let server;
  try {
    server = await startDashboard({
      // Local mode moves to another port at each `npm start`: follow its endpoint file.
      client: client.target.mode === 'local' ? followLocalEndpoint(rt, io, client) : client,
      assets, port: flags.port,
      pollMs: client.target.mode === 'local' ? 1000 : 2000,
      ...(flags.cluster ? { cluster: flags.cluster } : {}),
      onError: (err) => io.err(`dashboard: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
    });
  } catch (err) {
    throw new CliExit(EXIT.failed, `error: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  io.out(`Rollouts dashboard is available at ${server.url} (API: ${client.target.endpoint}, ${client.target.mode === 'local' ? 'local mode' : 'SigV4 with your AWS credentials'}); Ctrl-C stops it\n`);
  await new Promise<void>((resolve) => {
    const stop = rt.onInterrupt(() => {
      stop();
      resolve();
    });
  });
  await server.stop();
}

export function register(program: Command, io: CliIO): void {
  program
    .command('dashboard')
    .description('serve the web dashboard on 127.0.0.1 (rollouts, steps, pods, history, commands)')
    .option('--port <port>', 'port on 127.0.0.1 (0: any free one)', port, DEFAULT_DASHBOARD_PORT)
    .option('--cluster <name>', 'only the rollouts of this cluster (default: every cluster)')
    .option('--endpoint <url>', 'API of a deployed stack (default: $ROLLOUTS_ENDPOINT, else local mode)')
    .addHelpText('after', examplesHelp([
      ['rollouts dashboard', 'local mode\'s rollouts at http://127.0.0.1:3100/'],
      ['rollouts dashboard --endpoint https://<id>.lambda-url.eu-west-1.on.aws/', 'a deployed stack: this process signs every call with your AWS credentials'],
    ]))
    .action((flags: DashboardFlags) => dashboard(flags, io));
}
