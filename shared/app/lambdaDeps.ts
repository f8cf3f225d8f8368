// Composition root of the functions that reach clusters (reconcile, watch-proxy): the core
// (coreDeps.ts) plus the cluster provider, the drivers, the EventBridge publisher and the watch sink, built once per
// Lambda container from the validated configuration. Tests build the same graph with
// `buildAppDeps` on emulator clients instead of reading the environment.
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SchedulerWakeups } from '../adapters/scheduler/wakeSchedules.ts';
import { type WakeScheduler } from '../ports.ts';
import { DynamoWatcherLease } from '../adapters/dynamodb/watcherLease.ts';
import { LambdaWatcherLauncher } from '../adapters/lambda/watcherLauncher.ts';
import { RegisteredClusterProvider, type RegisteredClusterProviderOptions } from '../adapters/kubernetes/clusterProvider.ts';
import { EventBridgePublisher } from '../adapters/eventbridge/publisher.ts';
import { AdapterCallRunner } from '../adapters/checks/runner.ts';
import { awsRetryConfig } from '../adapters/aws/retryConfig.ts';
import { loadConfig, type Config } from './config.ts';
import type { ReconcileDeps } from '../reconcile/deps.ts';
import type { WatchClusters, WatchSink } from '../ports.ts';
import { queueWatchSink } from '../watch/queueSink.ts';
import { WORKLOAD_DRIVERS } from '../workloads/registry.ts';
import { buildCoreDeps, type CoreBuildOptions, type CoreDeps } from './coreDeps.ts';
import { WORKLOAD_RESOURCES } from './kubeResources.ts';
import type { WatcherDemandDeps } from '../watch/watcherDemand.ts';
import type { WatcherLauncher } from '../ports.ts';

export interface AppDeps extends CoreDeps {
  clusters: RegisteredClusterProvider;
  /** What the watch-proxy watches through (the same provider and its cached connections). */
  watchClusters: WatchClusters;
  /** The watch-proxy's notices: straight to the work queue. */
  watchSink: WatchSink;
  reconcile: ReconcileDeps;
  /** One-off schedules for wake-ups beyond SQS's delay; absent when not configured (the sweep covers them). */
  wakeups?: WakeScheduler;
  /** The on-demand watch-proxy (ROLLOUTS_WATCH_PROXY_FUNCTION); absent otherwise. */
  watcher?: WatcherDemandDeps;
}

export interface BuildOptions extends CoreBuildOptions {
  clients?: CoreBuildOptions['clients'] & { eventBridge?: EventBridgeClient; scheduler?: SchedulerClient };
  /** Extra cluster-provider settings (tests: static bearer tokens for a local control plane). */
  clusterOptions?: Omit<RegisteredClusterProviderOptions, 'registry' | 'resources'>;
  /** Replaces the Lambda launcher of the on-demand watcher (tests). */
  watcherLauncher?: WatcherLauncher;
}

export function buildAppDeps(config: Config, opts: BuildOptions = {}): AppDeps {
  const core = buildCoreDeps(config, opts);
  const { clock, meter, store } = core;
  const eventBridge = opts.clients?.eventBridge ?? new EventBridgeClient(awsRetryConfig());
  const clusters = new RegisteredClusterProvider({ clock, meter, ...opts.clusterOptions, registry: store, resources: WORKLOAD_RESOURCES });
  const events = new EventBridgePublisher({ client: eventBridge, eventBusName: config.eventBusName, source: config.eventSource, meter });
  const wakeups = config.wakeScheduleGroup && config.wakeScheduleRoleArn && config.triggerQueueArn
    ? new SchedulerWakeups({
      client: opts.clients?.scheduler ?? new SchedulerClient({}),
      groupName: config.wakeScheduleGroup, roleArn: config.wakeScheduleRoleArn, targetArn: config.triggerQueueArn, meter,
    })
    : undefined;
  const watcher = config.watchProxyFunction
    ? {
      lease: new DynamoWatcherLease({ client: core.dynamodb, tableName: config.tableName, meter }),
      launcher: opts.watcherLauncher ?? new LambdaWatcherLauncher(config.watchProxyFunction),
      clock, watcherMs: config.watcherSeconds * 1000,
    }
    : undefined;
  return {
    ...core,
    ...(wakeups ? { wakeups } : {}),
    ...(watcher ? { watcher } : {}),
    clusters,
    watchClusters: { source: (cluster) => clusters.kubeClient(cluster), invalidate: (cluster) => clusters.invalidate(cluster) },
    watchSink: queueWatchSink(core.queue),
    reconcile: { store, clusters, drivers: WORKLOAD_DRIVERS, events, clock, meter, queue: core.queue, calls: new AdapterCallRunner({ clock, kubeConfig: (cluster) => clusters.kubeConfig(cluster) }) },
  };
}

let containerDeps: AppDeps | undefined;

/** The container's dependencies, built on first use from process.env (cold start). */
export function lambdaDeps(): AppDeps {
  containerDeps ??= buildAppDeps(loadConfig(process.env));
  return containerDeps;
}
