// Which API a command talks to, and for which cluster:
//   --endpoint URL / ROLLOUTS_ENDPOINT  → a deployed stack (SigV4); --cluster / ROLLOUTS_CLUSTER required
//   else <data dir>/endpoint            → local mode (`npm start`); cluster "local" unless told otherwise,
//                                          and required with `serve --clusters N` (c1..cN, <data dir>/clusters)
//   else                                → a one-line error saying how to start local mode
import { LOCAL_CLUSTER, dataDirPaths, resolveDataDir } from '../local/dataDir.ts';
import { ConfigError } from '../errors.ts';
import { ApiClient, ApiUnreachableError, type ApiTarget } from '../client/client.ts';
import { CliExit, EXIT, type CliIO } from './io.ts';
import type { CliRuntime } from './runtime.ts';

export interface TargetOptions {
  endpoint?: string;
  cluster?: string;
}

export interface ResolvedTarget {
  client: ApiClient;
  cluster: string;
}

export async function resolveTarget(opts: TargetOptions, rt: CliRuntime, io: CliIO): Promise<ResolvedTarget> {
  const given = opts.endpoint ?? (rt.env.ROLLOUTS_ENDPOINT || undefined);
  const clusterOf = (target: ApiTarget): string => {
    const cluster = opts.cluster ?? (rt.env.ROLLOUTS_CLUSTER || undefined);
    if (cluster !== undefined) return cluster;
    if (target.mode === 'local') return LOCAL_CLUSTER;
    throw new CliExit(EXIT.usage, 'error: a deployed API serves many clusters: give --cluster <name> or set ROLLOUTS_CLUSTER');
  };
  if (given !== undefined) {
    const url = endpointUrl(given);
    const target: ApiTarget = { mode: 'deployed', endpoint: url.toString() };
    const cluster = clusterOf(target);
    // Loaded only here: local-mode commands do not pay for the AWS SDK's credential chain.
    const { signingRegion, sigv4Signer } = await import('./sigv4.ts');
    let region: string;
    try {
      region = signingRegion(url, rt.env);
    } catch (err) {
      if (err instanceof ConfigError) throw new CliExit(EXIT.failed, `error: ${err.message}`, { cause: err });
      throw err;
    }
    return { client: new ApiClient(target, { fetch: rt.fetch, signer: sigv4Signer(region) }), cluster };
  }
  const paths = dataDirPaths(resolveDataDir(rt.env, rt.cwd));
  const local = await readEndpoint(io, paths.endpoint);
  if (local === null) {
    throw new CliExit(
      EXIT.failed,
      `error: no rollouts API to talk to: start local mode with \`npm start\` (no ${paths.endpoint}), or point at a deployed stack with --endpoint / ROLLOUTS_ENDPOINT`,
    );
  }
  const target: ApiTarget = { mode: 'local', endpoint: local };
  const named = opts.cluster ?? (rt.env.ROLLOUTS_CLUSTER || undefined);
  if (named === undefined) await requireOneLocalCluster(io, paths.clusters);
  return { client: new ApiClient(target, { fetch: rt.fetch }), cluster: clusterOf(target) };
}

/**
 * `serve --clusters N` serves c1..cN and no cluster "local": a verb without --cluster would act on
 * nothing (or on a cluster the user did not mean, were it to pick c1, the canary), so it is a usage
 * error naming the clusters. One cluster (or a local mode from before the file existed): "local".
 */
async function requireOneLocalCluster(io: CliIO, file: string): Promise<void> {
  let names: string[];
  try {
    names = (await io.readFile(file)).split('\n').map((l) => l.trim()).filter((l) => l !== '');
  } catch {
    return;
  }
  if (names.length === 0 || names.includes(LOCAL_CLUSTER)) return;
  throw new CliExit(EXIT.usage, `error: local mode serves clusters ${names.join(', ')} (serve --clusters ${names.length}), none of them "${LOCAL_CLUSTER}": give --cluster <name> (e.g. --cluster ${names[0]}) or set ROLLOUTS_CLUSTER`);
}

/**
 * For a long-running client of local mode (the dashboard): the API as `<data dir>/endpoint` names it
 * now. Each `npm start` may listen on another port and rewrites the file, so it is read again on
 * every call (a few bytes, once a poll) and a new client made when the URL changed. Without the file
 * local mode is not running: ApiUnreachableError says so, and the next call finds it again.
 */
export function followLocalEndpoint(rt: CliRuntime, io: CliIO, first: ApiClient): () => Promise<ApiClient> {
  const file = dataDirPaths(resolveDataDir(rt.env, rt.cwd)).endpoint;
  let current = first;
  return async () => {
    const endpoint = await readEndpoint(io, file);
    if (endpoint === null) throw new ApiUnreachableError(`local mode is not running (no ${file}): start it with \`npm start\``);
    if (endpoint !== current.target.endpoint) current = new ApiClient({ mode: 'local', endpoint }, { fetch: rt.fetch });
    return current;
  };
}

function endpointUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliExit(EXIT.usage, `error: --endpoint must be a URL such as https://<id>.lambda-url.<region>.on.aws/, not "${text}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliExit(EXIT.usage, `error: --endpoint must be an http(s) URL, not "${text}"`);
  return url;
}

/** The URL local mode wrote, or null when the file is absent (local mode not running). */
async function readEndpoint(io: CliIO, file: string): Promise<string | null> {
  try {
    const text = (await io.readFile(file)).trim();
    return text === '' ? null : text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliExit(EXIT.failed, `error: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
