// The end of a cluster's leave (shared/api/clusterRoutes.ts deleteCluster): a cluster marked leaving
// keeps its registration while its rollouts hand their workloads back, since handing back needs to
// reach it. The pass that forgets the last of them deletes the registration. A crash before that
// leaves it marked: repeating `rollouts clusters deregister` then deletes it (nothing is stored).
import type { ReconcileDeps } from './deps.ts';

export async function finishLeaving(deps: ReconcileDeps, cluster: string): Promise<void> {
  const reg = await deps.store.getCluster(cluster);
  if (reg?.leaving === undefined) return;
  if ((await deps.store.listRollouts({ cluster })).length > 0) return;
  await deps.store.deleteCluster(cluster);
}
