// Resolves a registered cluster name to a ClusterClient. EKS registrations cost one DescribeCluster
// per container lifetime and one locally signed token per 14 minutes; endpoint registrations use a
// bearer token read once from Secrets Manager (endpoint.tokenSecretArn), or one configured here
// (local mode, tests). A registration's roleArn (typically in the cluster's account) is assumed
// for all of it: DescribeCluster and the token's signature, or the secret read. Connections live
// in a module-level cache, so warm Lambda invocations reuse them (and their TLS setup).
// The AWS clients each kind needs (EKS, STS, Secrets Manager) are imported on first use: a
// function that never meets such a registration never loads them (scripts/bundle-report.mjs).
import type { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, NotFoundError, UnauthorizedError } from '../../errors.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../kube/types.ts';
import { NO_METER, type Meter } from '../../meter.ts';
import { SYSTEM_CLOCK } from '../../clock.ts';
import type { Clock, ClusterClient, ClusterProvider, ClusterRegistration } from '../../ports.ts';
import { KubeClusterClient } from './clusterClient.ts';
import type { AssumeRole, EksClientFactory } from './eksAccess.ts';
import type { KubeResource } from './kinds.ts';
import type { AwsCredentialsProvider } from './eksToken.ts';
import { replaceToken, tokenKubeConfig } from './kubeConfigs.ts';
import type { SecretReaderFactory } from './tokenSecret.ts';

export interface ClusterRegistry {
  getCluster(name: string): Promise<ClusterRegistration | null>;
}

/** One reachable cluster: its KubeConfig and, for EKS, how to mint the next token. */
export interface ClusterConnection {
  readonly registration: ClusterRegistration;
  readonly fingerprint: string;
  readonly registrationReadAt: number;
  readonly kc: KubeConfig;
  /** EKS only: when the current token must be replaced (1 min before its 14 min are up). */
  refreshAt: number;
  readonly mintToken?: () => Promise<{ token: string; expiresAt: Date }>;
}

/** The default cache, shared by every provider in this process (one Lambda container). */
const processConnections = new Map<string, ClusterConnection>();

export interface RegisteredClusterProviderOptions {
  registry: ClusterRegistry;
  /** The custom resources the drivers declare (kinds.ts declaredResources), served by path. */
  resources: readonly KubeResource[];
  /** Makes the EKS client for a region; tests pass a stand-in. */
  eks?: EksClientFactory;
  /** Base AWS identity (the Lambda role); defaults to the SDK's node provider chain. */
  credentials?: AwsCredentialsProvider;
  /** How a registration's roleArn is assumed; defaults to fromTemporaryCredentials. */
  assumeRole?: AssumeRole;
  /** Makes the Secrets Manager client for a region (endpoint.tokenSecretArn); tests pass a stand-in. */
  secrets?: SecretReaderFactory;
  /**
   * Bearer tokens for endpoint registrations without tokenSecretArn, by cluster name (local mode,
   * tests). A registration's tokenSecretArn wins.
   */
  staticTokens?: Record<string, string>;
  clock?: Clock;
  meter?: Meter;
  /** Re-read a registration after this long, to notice edits (default 5 min). */
  registrationTtlMs?: number;
  /** Defaults to the process-wide cache; tests pass their own. */
  cache?: Map<string, ClusterConnection>;
}

const TOKEN_REFRESH_MARGIN_MS = 60_000;

export class RegisteredClusterProvider implements ClusterProvider {
  private readonly opts: RegisteredClusterProviderOptions;
  private readonly clock: Clock;
  private readonly cache: Map<string, ClusterConnection>;
  private readonly clients = new WeakMap<KubeConfig, KubeClusterClient>();
  /** One lookup per cluster at a time, so concurrent cold calls share one DescribeCluster and token. */
  private readonly inflight = new Map<string, Promise<ClusterConnection>>();
  private baseCredentials?: AwsCredentialsProvider;

  constructor(opts: RegisteredClusterProviderOptions) {
    this.opts = opts;
    this.clock = opts.clock ?? SYSTEM_CLOCK;
    this.cache = opts.cache ?? processConnections;
  }

  /** A client that re-authenticates once when the apiserver answers 401 (token or CA rotated). */
  async client(cluster: string): Promise<ClusterClient> {
    await this.kubeClient(cluster); // fail fast on unknown or broken registrations
    return new ReauthenticatingClient(this, cluster);
  }

  /** The underlying client with a fresh token, e.g. for watches; no 401 retry. */
  async kubeClient(cluster: string): Promise<KubeClusterClient> {
    const conn = await this.connection(cluster);
    let client = this.clients.get(conn.kc);
    if (!client) {
      client = new KubeClusterClient(conn.kc, { meter: this.opts.meter ?? NO_METER, resources: this.opts.resources, clock: this.clock });
      this.clients.set(conn.kc, client);
    }
    return client;
  }

  /**
   * The cluster's KubeConfig with a fresh token, for what the ClusterClient port does not cover:
   * client-node's Exec, for exec hooks (shared/adapters/checks/exec.ts).
   */
  async kubeConfig(cluster: string): Promise<KubeConfig> {
    return (await this.connection(cluster)).kc;
  }

  /** Forget everything about `cluster`: the next call re-reads, re-describes and re-signs. */
  invalidate(cluster: string): void {
    this.cache.delete(cluster);
  }

  private connection(name: string): Promise<ClusterConnection> {
    const running = this.inflight.get(name);
    if (running) return running;
    const lookup = this.freshConnection(name).finally(() => this.inflight.delete(name));
    this.inflight.set(name, lookup);
    return lookup;
  }

  private async freshConnection(name: string): Promise<ClusterConnection> {
    const now = this.clock.now().getTime();
    let conn = this.cache.get(name);
    if (conn && now - conn.registrationReadAt >= (this.opts.registrationTtlMs ?? 5 * 60_000)) {
      const registration = await this.readRegistration(name);
      conn = fingerprintOf(registration) === conn.fingerprint ? { ...conn, registrationReadAt: now } : undefined;
      if (conn) this.cache.set(name, conn);
    }
    if (!conn) {
      conn = await this.connect(await this.readRegistration(name), now);
      this.cache.set(name, conn);
    }
    if (conn.mintToken && now >= conn.refreshAt) {
      const { token, expiresAt } = await conn.mintToken();
      replaceToken(conn.kc, token);
      conn.refreshAt = expiresAt.getTime() - TOKEN_REFRESH_MARGIN_MS;
    }
    return conn;
  }

  private async readRegistration(name: string): Promise<ClusterRegistration> {
    const registration = await this.opts.registry.getCluster(name);
    if (!registration) throw new NotFoundError(`cluster "${name}" is not registered`);
    return registration;
  }

  private async connect(reg: ClusterRegistration, now: number): Promise<ClusterConnection> {
    const base = { registration: reg, fingerprint: fingerprintOf(reg), registrationReadAt: now };
    if (reg.eks) {
      const { clusterName, region, roleArn } = reg.eks;
      const [{ defaultEksClient, describeEksCluster }, { createEksToken }] = await Promise.all([import('./eksAccess.ts'), import('./eksToken.ts')]);
      const credentials = await this.credentialsFor(roleArn, region);
      const endpoint = await describeEksCluster((this.opts.eks ?? defaultEksClient)(region, credentials), clusterName, reg.name);
      const mintToken = () => createEksToken({ clusterName, region, credentials, now: this.clock.now() });
      const first = await mintToken();
      const kc = tokenKubeConfig(reg.name, { ...endpoint, token: first.token });
      return { ...base, kc, mintToken, refreshAt: first.expiresAt.getTime() - TOKEN_REFRESH_MARGIN_MS };
    }
    if (reg.endpoint) {
      const { server, caData, insecureSkipTlsVerify, tokenSecretArn, roleArn } = reg.endpoint;
      const token = tokenSecretArn !== undefined ? await this.secretToken(reg.name, tokenSecretArn, roleArn) : this.opts.staticTokens?.[reg.name];
      if (token === undefined) {
        throw new ConfigError(`cluster "${reg.name}": no bearer token: register it with endpoint.tokenSecretArn (a Secrets Manager secret holding the token)`);
      }
      const kc = tokenKubeConfig(reg.name, { server, caData, skipTLSVerify: insecureSkipTlsVerify ?? false, token });
      // No expiry: a rotated token shows as a 401, and the re-authenticating client reads the secret again.
      return { ...base, kc, refreshAt: Number.POSITIVE_INFINITY };
    }
    throw new ConfigError(`cluster "${reg.name}": registration has neither eks nor endpoint`);
  }

  /** The token in the secret, read with the registration's role when it names one (the secret is in the cluster's account). */
  private async secretToken(cluster: string, arn: string, roleArn: string | undefined): Promise<string> {
    const { defaultSecretReader, readTokenSecret, secretRegion } = await import('./tokenSecret.ts');
    const region = secretRegion(arn);
    const credentials = await this.credentialsFor(roleArn, region);
    return readTokenSecret((this.opts.secrets ?? defaultSecretReader)(region, credentials), arn, cluster);
  }

  /** The base identity, or the role's credentials (assumed once per credential lifetime) when there is a role. */
  private async credentialsFor(roleArn: string | undefined, region: string): Promise<AwsCredentialsProvider> {
    const baseCredentials = await this.base();
    if (roleArn === undefined) return baseCredentials;
    const { defaultAssumeRole, memoizeCredentials } = await import('./eksAccess.ts');
    return memoizeCredentials((this.opts.assumeRole ?? defaultAssumeRole)(roleArn, baseCredentials, region), this.clock);
  }

  private async base(): Promise<AwsCredentialsProvider> {
    this.baseCredentials ??= this.opts.credentials ?? (await import('@aws-sdk/credential-providers')).fromNodeProviderChain();
    return this.baseCredentials;
  }
}

function fingerprintOf(reg: ClusterRegistration): string {
  return JSON.stringify([reg.eks ?? null, reg.endpoint ?? null]);
}

/**
 * Retries a call once after a 401, with a rebuilt connection: a token the server no longer accepts,
 * or a cluster that was recreated behind the same name. Retrying is safe: a 401 means nothing ran.
 */
class ReauthenticatingClient implements ClusterClient {
  constructor(
    private readonly provider: RegisteredClusterProvider,
    private readonly cluster: string,
  ) {}

  get(ref: ObjectRef): Promise<KubeObject | null> {
    return this.call((c) => c.get(ref));
  }

  list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]> {
    return this.call((c) => c.list(apiVersion, kind, namespace, labelSelector));
  }

  write(write: KubeWrite): Promise<KubeObject | null> {
    return this.call((c) => c.write(write));
  }

  private async call<T>(fn: (c: KubeClusterClient) => Promise<T>): Promise<T> {
    try {
      return await fn(await this.provider.kubeClient(this.cluster));
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
      this.provider.invalidate(this.cluster);
      return fn(await this.provider.kubeClient(this.cluster));
    }
  }
}
