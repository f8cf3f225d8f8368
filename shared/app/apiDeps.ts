// Composition root of the API function: the core (coreDeps.ts) plus read-only cluster access for the
// workload route (GET .../workload), loaded on the first such request (lazyClusterProvider.ts) so the
// ordinary calls keep the cold start of a bundle without the Kubernetes client. Deployed, the API
// role maps to the Kubernetes group serverless-rollouts-view (get/list only; infra/stack.ts).
import type { RegisteredClusterProviderOptions } from '../adapters/kubernetes/clusterProvider.ts';
import { loadConfig, type Config } from './config.ts';
import { buildCoreDeps, type CoreBuildOptions, type CoreDeps } from './coreDeps.ts';
import { WORKLOAD_RESOURCES } from './kubeResources.ts';
import { LazyClusterProvider, registeredClusterProviderLoader, type ClusterProviderLoader } from './lazyClusterProvider.ts';

export interface ApiBuildOptions extends CoreBuildOptions {
  /** Extra cluster-provider settings (tests: static bearer tokens for a local control plane). */
  clusterOptions?: Omit<RegisteredClusterProviderOptions, 'registry' | 'resources'>;
  /** Replaces the loader of the cluster provider (tests); default: import the Kubernetes adapter. */
  loadClusters?: ClusterProviderLoader;
}

export function buildApiDeps(config: Config, opts: ApiBuildOptions = {}): CoreDeps {
  const core = buildCoreDeps(config, opts);
  const { clock, meter, store } = core;
  const load = opts.loadClusters ?? registeredClusterProviderLoader({ clock, meter, ...opts.clusterOptions, registry: store, resources: WORKLOAD_RESOURCES });
  return { ...core, api: { ...core.api, clusters: new LazyClusterProvider(load) } };
}

let containerDeps: CoreDeps | undefined;

/** The API container's dependencies, built on first use from process.env (cold start). */
export function apiLambdaDeps(): CoreDeps {
  containerDeps ??= buildApiDeps(loadConfig(process.env));
  return containerDeps;
}
