// Planned actions → writes for a Deployment, by release strategy. What the Deployment carries wins
// (its annotations say which strategy a release in flight uses, even after a lost STATE); otherwise
// the release's own strategy, which the planner passes on the actions that move pods; at rest both
// strategies hold and hand back alike.
import type { KubeWrite } from '../../kube/types.ts';
import { DEFAULT_DEPLOYMENT_STRATEGY, type Action, type DeploymentStrategy, type WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { minReadyWrites } from './minReadyWrites.ts';
import { partitionWrites } from './partitionWrites.ts';
import { deploymentView } from './view.ts';
import { deletionCostWrites } from './deletionCost.ts';
import { canaryWrites } from './canaryWrites.ts';

export function deploymentWrites(obs: Observation, actions: Action[], view: WorkloadView = deploymentView(obs)): KubeWrite[] {
  const strategy = view.strategy ?? requested(actions) ?? DEFAULT_DEPLOYMENT_STRATEGY;
  // Steering first: the pods a scale-down may take are marked before the move that scales down.
  const first = actions.flatMap((a) => (a.type === 'replace-first' ? a.pods : []));
  return [...deletionCostWrites(obs, first), ...byStrategy(strategy)(obs, actions, view)];
}

function requested(actions: Action[]): DeploymentStrategy | null {
  for (const a of actions) if ((a.type === 'distribute' || a.type === 'restore-template') && a.strategy !== null) return a.strategy;
  return null;
}

function byStrategy(strategy: DeploymentStrategy): (obs: Observation, actions: Action[], view: WorkloadView) => KubeWrite[] {
  if (strategy === 'CanaryWorkload') return canaryWrites;
  return strategy === 'Partition' ? partitionWrites : minReadyWrites;
}
