// Embedded DynamoDB for local mode (and the test harness): dynalite in this process on loopback,
// persisted under a data directory when `path` is given (LevelDB through classic-level, which ships
// prebuilt binaries for Node 22 on linux/darwin/win32), in memory otherwise.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { awsRetryConfig } from '../aws/retryConfig.ts';
import { ConfigError } from '../../errors.ts';
import { acquirePidLock } from '../local/pidLock.ts';
import { ensureTable } from './table.ts';

export interface EmbeddedDynamoOptions {
  /** LevelDB data directory (created if missing); in memory when absent. */
  path?: string;
  /** 0 or absent: any free port. */
  port?: number;
  host?: string;
  /** Create this table (STATE_TABLE layout) if it does not exist, and wait until ACTIVE. */
  tableName?: string;
}

export interface EmbeddedDynamo {
  endpoint: string;
  /** The dynalite http server (tests wrap its 'request' listener to count requests). */
  server: Server;
  /** A client for `endpoint` with static local credentials. */
  client: DynamoDBClient;
  /** Closes the client, the server and the LevelDB store (the data directory can be reopened). */
  stop(): Promise<void>;
}

export async function startEmbeddedDynamo(opts: EmbeddedDynamoOptions = {}): Promise<EmbeddedDynamo> {
  const unlock = opts.path === undefined ? async () => {} : await lockDataDir(opts.path);
  // createTableMs 0: tables are ACTIVE at once (dynalite's default keeps them CREATING for 500 ms).
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(opts.path === undefined ? {} : { path: opts.path }) });
  const host = opts.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await unlock();
    throw new ConfigError(`embedded DynamoDB cannot listen on ${host}:${opts.port ?? 0}`, { cause: err });
  }
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://${host}:${port}`;
  const client = localDynamoClient(endpoint);
  const stop = async (): Promise<void> => {
    // Destroy the client first: its keep-alive sockets would otherwise hold server.close() open.
    client.destroy();
    server.closeIdleConnections();
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    await unlock();
  };
  try {
    if (opts.tableName !== undefined) await ensureTable(client, opts.tableName);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint, server, client, stop };
}

/** A DynamoDB client for a local endpoint: the region and credentials only need to be well-formed; it retries as deployed. */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    ...awsRetryConfig(),
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

const LOCK_FILE = 'rollouts-embedded.lock';

/**
 * One process per data directory. LevelDB locks it too, but dynalite opens the store lazily and
 * throws the open failure from a callback ("Database is closed"), which kills the process; our own
 * lock file (holding the owner's pid) turns that into a clear error up front. A lock left by a
 * process that no longer runs is taken over.
 */
function lockDataDir(dir: string): Promise<() => Promise<void>> {
  // Not even this process may open it twice: LevelDB would kill the process from a callback.
  return acquirePidLock(path.join(dir, LOCK_FILE), (owner) => `the data directory ${dir} is in use by process ${owner} (another local mode?)`);
}

