// Local mode: every cluster name resolves to one context of a kubeconfig (the file in KUBECONFIG,
// a given path, or an already loaded KubeConfig), e.g. the local test control plane.
import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../ports.ts';
import { ConfigError } from '../../errors.ts';
import { NO_METER, type Meter } from '../../meter.ts';
import type { ClusterClient, ClusterProvider } from '../../ports.ts';
import { KubeClusterClient } from './clusterClient.ts';
import type { KubeResource } from './kinds.ts';
import type { Impersonation } from './transport.ts';

export interface KubeconfigClusterProviderOptions {
  /** A kubeconfig file; defaults to KUBECONFIG / ~/.kube/config. Ignored when `kubeConfig` is given. */
  path?: string;
  kubeConfig?: KubeConfig;
  /** Use this context instead of the current one. */
  context?: string;
  meter?: Meter;
  clock?: Clock;
  /** The custom resources the drivers declare (kinds.ts declaredResources), served by path. */
  resources: readonly KubeResource[];
  /** Every request as this identity (shared/local/identity.ts). */
  impersonate?: Impersonation;
}

export class KubeconfigClusterProvider implements ClusterProvider {
  private readonly only: KubeClusterClient;
  /** The loaded configuration, for client-node's Exec (exec hooks). */
  readonly kubeConfig: KubeConfig;

  constructor(opts: KubeconfigClusterProviderOptions) {
    const kc = loadKubeConfig(opts);
    if (opts.context) {
      if (!kc.getContextObject(opts.context)) throw new ConfigError(`kubeconfig has no context "${opts.context}"`);
      kc.setCurrentContext(opts.context);
    }
    if (!kc.getCurrentCluster()) throw new ConfigError('kubeconfig has no current context with a cluster');
    this.only = new KubeClusterClient(kc, { meter: opts.meter ?? NO_METER, resources: opts.resources, ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.impersonate ? { impersonate: opts.impersonate } : {}) });
    this.kubeConfig = kc;
  }

  /** The same client whatever the cluster name: local mode has one cluster. */
  async client(_cluster: string): Promise<ClusterClient> {
    return this.only;
  }

  /** The concrete client, for watches. */
  kubeClient(): KubeClusterClient {
    return this.only;
  }
}

/** A KubeConfig of our own: choosing a context must not change the caller's object. */
function loadKubeConfig(opts: KubeconfigClusterProviderOptions): KubeConfig {
  const kc = new KubeConfig();
  if (opts.kubeConfig) kc.loadFromString(opts.kubeConfig.exportConfig());
  else if (opts.path) kc.loadFromFile(opts.path);
  else kc.loadFromDefault();
  return kc;
}
