// Where local mode keeps its state, and how the CLI finds a running local mode: `.rollouts/` in the
// working directory (ROLLOUTS_HOME overrides). `endpoint` holds the API URL while `serve` runs;
// `kubeconfig` reaches the cluster it drives (the sandbox's admin user, for kubectl).
import path from 'node:path';
import { acquirePidLock } from '../adapters/local/pidLock.ts';

/** Local mode's one cluster name; the CLI's --cluster defaults to it against local mode with one cluster. */
export const LOCAL_CLUSTER = 'local';
export const DATA_DIR_ENV = 'ROLLOUTS_HOME';
export const DEFAULT_DATA_DIR = '.rollouts';

export interface DataDirPaths {
  root: string;
  /** The API URL of the running local mode; removed when it stops. */
  endpoint: string;
  /** The cluster names the running local mode serves, one a line ("local", or c1..cN); removed when it stops. */
  clusters: string;
  kubeconfig: string;
  /** One `serve` per data directory. */
  lock: string;
  /** DynamoDB data when driving the cluster of a kubeconfig (kept across starts). */
  dynamodb: string;
  /** The sandbox control plane and its DynamoDB data; kept across starts (`serve --fresh` wipes them). */
  sandbox: string;
  sandboxKube: string;
  sandboxDynamodb: string;
  /** `serve --clusters N`: one directory per sandbox cluster (c1…), their DynamoDB data and their count. */
  fleet: string;
  fleetDynamodb: string;
}

export function resolveDataDir(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string {
  const given = env[DATA_DIR_ENV];
  return path.resolve(cwd, given !== undefined && given !== '' ? given : DEFAULT_DATA_DIR);
}

export function dataDirPaths(root: string): DataDirPaths {
  const sandbox = path.join(root, 'sandbox');
  return {
    root,
    endpoint: path.join(root, 'endpoint'),
    clusters: path.join(root, 'clusters'),
    kubeconfig: path.join(root, 'kubeconfig'),
    lock: path.join(root, 'serve.lock'),
    dynamodb: path.join(root, 'dynamodb'),
    sandbox,
    sandboxKube: path.join(sandbox, 'kube'),
    sandboxDynamodb: path.join(sandbox, 'dynamodb'),
    fleet: path.join(root, 'fleet'),
    fleetDynamodb: path.join(root, 'fleet', 'dynamodb'),
  };
}

/**
 * Takes the data directory for this process: a lock file holding our pid. A lock whose process no
 * longer runs (a crash, a SIGKILL) is taken over. Without it, a second `serve` would wipe the
 * first one's sandbox under its feet.
 */
export function lockDataDir(paths: DataDirPaths): Promise<() => Promise<void>> {
  return acquirePidLock(paths.lock, (owner) => `local mode is already running from ${paths.root} (process ${owner}); stop it first, or set ${DATA_DIR_ENV} to another directory`, { sameProcessMayRetake: true });
}

