// The API function's cluster access loads on first use (shared/app/lazyClusterProvider.ts): ordinary
// API calls never evaluate @kubernetes/client-node; the first workload request does.
// Module loads are observed with a module.registerHooks load hook, installed before anything that
// could reach the Kubernetes adapter is imported (node:test runs each test file in its own process).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import type { ClusterClient, ClusterProvider } from '../../../shared/ports.ts';

const loadedUrls: string[] = [];
registerHooks({
  load(url, context, nextLoad) {
    loadedUrls.push(url);
    return nextLoad(url, context);
  },
});
const kubernetesClientLoaded = () => loadedUrls.some((url) => url.includes('/@kubernetes/client-node/'));

const { LazyClusterProvider, registeredClusterProviderLoader } = await import('../../../shared/app/lazyClusterProvider.ts');

const CLIENT: ClusterClient = { get: async () => null, list: async () => [], write: async () => null };

function countingLoader(fail: unknown[] = []) {
  const calls: string[] = [];
  const provider: ClusterProvider = { client: async (cluster) => (calls.push(cluster), CLIENT) };
  let loads = 0;
  const load = async (): Promise<ClusterProvider> => {
    loads += 1;
    const error = fail.shift();
    if (error !== undefined) throw error;
    return provider;
  };
  return { load, calls, loads: () => loads };
}

describe('LazyClusterProvider', () => {
  test('loads nothing when built; the first client() loads the provider and asks it for that cluster', async () => {
    const loader = countingLoader();
    const lazy = new LazyClusterProvider(loader.load);
    assert.equal(loader.loads(), 0);
    assert.equal(lazy.started, false);
    assert.equal(await lazy.client('prod'), CLIENT);
    assert.equal(loader.loads(), 1);
    assert.deepEqual(loader.calls, ['prod']);
  });

  test('concurrent first calls share one load, and later calls reuse the loaded provider', async () => {
    const loader = countingLoader();
    const lazy = new LazyClusterProvider(loader.load);
    await Promise.all([lazy.client('a'), lazy.client('b'), lazy.client('c')]);
    await lazy.client('d');
    assert.equal(loader.loads(), 1);
    assert.deepEqual(loader.calls.sort(), ['a', 'b', 'c', 'd']);
  });

  test('a failed load is reported to that caller and retried on the next call', async () => {
    const loader = countingLoader([new Error('import failed')]);
    const lazy = new LazyClusterProvider(loader.load);
    await assert.rejects(lazy.client('prod'), /import failed/);
    assert.equal(lazy.started, false);
    assert.equal(await lazy.client('prod'), CLIENT);
    assert.equal(loader.loads(), 2);
  });
});

describe('the API function', () => {
  test('its entry point loads without @kubernetes/client-node; the first cluster call imports it', async () => {
    Object.assign(process.env, {
      ROLLOUTS_TABLE_NAME: 'rollouts-test',
      ROLLOUTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/work.fifo',
      ROLLOUTS_TRIGGER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/trigger',
      ROLLOUTS_EVENT_BUS_NAME: 'rollouts',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    const entry = (await import('../../../functions/api/handler.ts')) as { handler?: unknown };
    const { apiLambdaDeps } = await import('../../../shared/app/apiDeps.ts');
    assert.equal(typeof entry.handler, 'function');
    assert.ok(loadedUrls.some((url) => url.endsWith('/functions/api/createHandler.ts')), 'the hook sees the entry point\'s imports');
    assert.ok(apiLambdaDeps().api.clusters instanceof LazyClusterProvider, 'the deployed API gets the lazy provider');
    assert.equal(kubernetesClientLoaded(), false, 'loading the API entry point imported @kubernetes/client-node');

    // The deployed loader over a registry that knows no cluster: the import happens, then the lookup fails.
    const lazy = new LazyClusterProvider(registeredClusterProviderLoader({ registry: { getCluster: async () => null }, resources: [] }));
    assert.equal(kubernetesClientLoaded(), false);
    await assert.rejects(lazy.client('prod'), /cluster "prod" is not registered/);
    assert.equal(kubernetesClientLoaded(), true);
  });
});
