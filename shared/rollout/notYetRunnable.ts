// Kruise fields that parseRollout accepts and normalises, but that no release can run yet: traffic
// routing beside the canary Deployment, blue-green and traffic routing on kinds other than a
// Deployment, that docs/traffic.md plans. A Rollout using them is refused
// when applied (the API answers 422 with these issues) and, if one was stored anyway (another
// version, a restored backup), the planner holds it Degraded naming the field and touches nothing.
import type { FieldIssue } from '../errors.ts';
import type { RolloutSpec } from './types.ts';
import { workloadTypeOf } from './workloadKinds.ts';

const NOT_YET = 'is valid, but serverless-rollouts cannot run it yet (docs/traffic.md)';

/** The path of the strategy body the spec came from. */
function strategyPath(spec: RolloutSpec): string {
  return spec.rollingStyle === 'BlueGreen' ? 'spec.strategy.blueGreen' : 'spec.strategy.canary';
}

/** One issue per feature a release of this spec would need and does not have yet; [] when it can run. */
export function notYetRunnable(spec: RolloutSpec): FieldIssue[] {
  const at = strategyPath(spec);
  const issues: FieldIssue[] = [];
  // Blue-green runs on the kinds whose driver declares it (WorkloadType.runsBlueGreen: a Deployment).
  if (spec.rollingStyle === 'BlueGreen' && !workloadTypeOf(spec.workloadRef.kind).runsBlueGreen) {
    issues.push({ path: at, reason: `${NOT_YET}: blue-green releases of a ${spec.workloadRef.kind} (a Deployment's can)` });
  }
  // The canary Deployment runs (shared/workloads/deployment/canaryWrites.ts), but its pods are not
  // among the pods that hooks and the per-pod update timeout see (the driver's podViews).
  if (spec.rollingStyle === 'CanaryWorkload' && spec.lifecycle) issues.push({ path: 'spec.lifecycle', reason: `${NOT_YET}: pod hooks on the canary Deployment's pods` });
  if (spec.rollingStyle === 'CanaryWorkload' && spec.podUpdateTimeoutSeconds != null) issues.push({ path: 'spec.podUpdateTimeout', reason: `${NOT_YET}: a per-pod update timeout on the canary Deployment's pods` });
  // Traffic routing runs in place and blue-green (shared/rollout/blueGreen.ts) on the kinds whose
  // driver names a revision label the Services select on (WorkloadType.routesTraffic: a Deployment's
  // pod-template-hash; shared/rollout/routing.ts); beside the canary Deployment and on the other
  // kinds it is to come (docs/traffic.md).
  if (spec.trafficRouting && spec.rollingStyle === 'CanaryWorkload') {
    issues.push({ path: `${at}.trafficRoutings`, reason: `${NOT_YET}: traffic routing through ${describeProvider(spec)} in a ${spec.rollingStyle} release` });
  } else if (spec.trafficRouting && !workloadTypeOf(spec.workloadRef.kind).routesTraffic) {
    issues.push({ path: `${at}.trafficRoutings`, reason: `${NOT_YET}: traffic routing through ${describeProvider(spec)} for a ${spec.workloadRef.kind} (a Deployment's release can)` });
  }
  return issues;
}

function describeProvider(spec: RolloutSpec): string {
  const provider = spec.trafficRouting?.provider;
  if (provider?.type === 'gateway') return `HTTPRoute ${provider.httpRouteName}`;
  return `Ingress ${provider?.name ?? ''} (${provider?.classType ?? ''})`;
}

/** The planner's form: "<path> <reason>" lines for a Degraded reason. */
export function notYetRunnableProblems(spec: RolloutSpec): string[] {
  return notYetRunnable(spec).map((i) => `${i.path} ${i.reason}`);
}
