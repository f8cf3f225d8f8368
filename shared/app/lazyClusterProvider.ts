// A ClusterProvider that loads the real one on first use. The API function needs cluster access for
// one route only (GET .../workload); evaluating @kubernetes/client-node and the EKS/STS clients at
// cold start would cost every other call (scripts/bundle-report.mjs). esbuild still inlines the
// dynamically imported module (one file per function) but wraps it so its code runs only when
// `import()` does, i.e. on the first workload request. Node still parses and compiles the inlined
// code at load, so this saves the evaluation, not the whole cost of the bigger bundle.
import type { RegisteredClusterProviderOptions } from '../adapters/kubernetes/clusterProvider.ts';
import type { ClusterClient, ClusterProvider } from '../ports.ts';

/** Produces the real provider; called at most once per successful load. */
export type ClusterProviderLoader = () => Promise<ClusterProvider>;

export class LazyClusterProvider implements ClusterProvider {
  private readonly load: ClusterProviderLoader;
  private loading: Promise<ClusterProvider> | undefined;

  constructor(load: ClusterProviderLoader) {
    this.load = load;
  }

  /** Whether the real provider has been asked for yet (it may still be loading). */
  get started(): boolean {
    return this.loading !== undefined;
  }

  async client(cluster: string): Promise<ClusterClient> {
    // Concurrent first calls share one load. A failed load is forgotten so the next call retries
    // instead of the container answering 502 until it is recycled.
    this.loading ??= this.load().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return (await this.loading).client(cluster);
  }
}

/** The deployed loader: imports the Kubernetes adapter only now, then resolves clusters by registration. */
export function registeredClusterProviderLoader(options: RegisteredClusterProviderOptions): ClusterProviderLoader {
  return async () => {
    const { RegisteredClusterProvider } = await import('../adapters/kubernetes/clusterProvider.ts');
    return new RegisteredClusterProvider(options);
  };
}
