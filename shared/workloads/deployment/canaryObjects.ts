// The canary Deployment of the CanaryWorkload strategy (Kruise's `enableExtraWorkloadForCanary: true`;
// docs/traffic.md "Where the canary workload and blue-green live"): how it is named, recognised as
// ours, and built from the user's Deployment.
//
// Kruise (pkg/controller/batchrelease/control/canarystyle/deployment/canary.go) creates it with
// `generateName: <name>-`, the label rollouts.kruise.io/canary-deployment=<name>, a finalizer and its
// BatchRelease as controller, and a copy of the stable Deployment's spec at replicas 0, unpaused. We
// keep Kruise's label and the copied spec, but use the fixed name `<name>-canary`: a generated name
// is not idempotent (a pass that dies after the create would create a second one on replay), and
// there is no BatchRelease object to own it, so the user's Deployment owns it (deleting that
// Deployment garbage-collects the canary too), without a finalizer of ours that nobody would remove
// while we are absent.
import type { KubeObject } from '../../kube/types.ts';
import type { PodTemplateMetadataPatch } from '../../rollout/trafficTypes.ts';
import { isRecord } from '../../json.ts';
import { spec, templateOf } from '../common/objects.ts';
import { userStrategy } from './deploymentObjects.ts';

/** Kruise's util.CanaryDeploymentLabel: the stable Deployment's name, on the canary Deployment. */
export const CANARY_LABEL = 'rollouts.kruise.io/canary-deployment';
/**
 * The same name as an annotation: the Deployment controller copies a Deployment's annotations onto
 * its ReplicaSets (not its labels), so the canary's ReplicaSets name the user's Deployment too, and
 * their watch events map to its rollout (watches.ts).
 */
export const CANARY_OF = 'rollouts.serverless-rollouts.io/canary-of';
/** The revision id (revision.ts) of the user's template the canary was made from: its pods count under it. */
export const CANARY_REVISION = 'rollouts.serverless-rollouts.io/canary-revision';
/** Set on the canary once the last move has unpaused the user's Deployment: the release is handing back. */
export const CANARY_FINISHING = 'rollouts.serverless-rollouts.io/canary-finishing';

export function canaryName(deploymentName: string): string {
  return `${deploymentName}-canary`;
}

/** What holds the `<name>-canary` name: our canary Deployment, someone else's object, or nothing. */
export type CanaryRead =
  | { state: 'absent' }
  | { state: 'ours'; canary: KubeObject; revision: string; finishing: boolean }
  | { state: 'foreign'; holder: KubeObject };

/** The canary Deployment observe read by name (obs.others), judged against the user's Deployment `d`. */
export function readCanary(d: KubeObject, others: readonly KubeObject[] = []): CanaryRead {
  const name = canaryName(d.metadata.name);
  const holder = others.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
  // One being deleted is gone in a moment (its pods follow by garbage collection): as if absent.
  if (!holder || holder.metadata.deletionTimestamp) return { state: 'absent' };
  const annotations = holder.metadata.annotations ?? {};
  const ours = holder.metadata.labels?.[CANARY_LABEL] === d.metadata.name && annotations[CANARY_OF] === d.metadata.name;
  if (!ours) return { state: 'foreign', holder };
  return { state: 'ours', canary: holder, revision: annotations[CANARY_REVISION] ?? '', finishing: annotations[CANARY_FINISHING] === 'true' };
}

/** The user's pod template with patchPodTemplateMetadata's labels and annotations merged in (Kruise's patch wins). */
export function canaryTemplate(d: KubeObject, podMetadata: PodTemplateMetadataPatch | undefined): Record<string, unknown> {
  const template = templateOf(d);
  if (!podMetadata) return template;
  const meta = isRecord(template.metadata) ? template.metadata : {};
  const labels = { ...(isRecord(meta.labels) ? meta.labels : {}), ...podMetadata.labels };
  const annotations = { ...(isRecord(meta.annotations) ? meta.annotations : {}), ...podMetadata.annotations };
  return {
    ...template,
    metadata: { ...meta, ...(Object.keys(labels).length > 0 ? { labels } : {}), ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
  };
}

/**
 * The canary Deployment for revision `revision` of the user's Deployment: a copy of its spec (Kruise
 * copies the whole spec: selector, strategy, minReadySeconds…), unpaused, at `replicas`, on the
 * patched template. The selector is the user's, so the user's Service selects canary pods too (as
 * Kruise); the ReplicaSets stay apart by their pod-template-hash and their controller.
 */
export function canaryObject(d: KubeObject, revision: string, replicas: number, podMetadata: PodTemplateMetadataPatch | undefined): KubeObject {
  const { paused: _paused, replicas: _replicas, ...copied } = spec(d);
  const name = d.metadata.name;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: canaryName(name),
      namespace: d.metadata.namespace,
      labels: { [CANARY_LABEL]: name },
      annotations: { [CANARY_OF]: name, [CANARY_REVISION]: revision },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid ?? '' }],
    },
    spec: { ...copied, strategy: { ...userStrategy(d) }, replicas, template: canaryTemplate(d, podMetadata) },
  };
}
