// The two Services every provider routes between, as Kruise's traffic manager shapes them
// (pkg/trafficrouting/manager.go of openkruise/rollouts: createCanaryService, PatchStableService,
// RestoreStableService): a `<service>-canary` copy of the stable Service that selects only the new
// revision's pods, and the stable Service narrowed to the stable revision's pods. Pure writes; the
// only state is on the objects themselves (an annotation with the selector value we replaced), so
// any pass, after any crash, can put the stable Service back exactly.
import type { KubeObject, KubeWrite, OwnerReference } from '../kube/types.ts';
import { isRecord } from '../json.ts';
import type { TrafficRouting } from '../rollout/trafficTypes.ts';
import { ANNOTATION_PREFIX, MANAGED_BY, MANAGED_BY_LABEL, TrafficObjectError, canaryServiceName, isOurs, refOf } from './provider.ts';

/** On the stable Service while narrowed: the revision label's value in its selector before we set it (JSON: a string, or null when it had none). */
export const ORIGINAL_SELECTOR_ANNOTATION = `${ANNOTATION_PREFIX}/original-selector-value`;
/** Never copied to the canary Service: it describes the stable Service's own last apply. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Fields the apiserver allocates per Service (Kruise clears the same before creating the twin). */
const ALLOCATED_SPEC_FIELDS = ['clusterIP', 'clusterIPs', 'externalIPs', 'ipFamilyPolicy', 'ipFamilies', 'loadBalancerIP', 'healthCheckNodePort'];

export interface RevisionSelector {
  /** The pod label that tells revisions apart: pod-template-hash for a Deployment's ReplicaSets. */
  label: string;
  stable: string;
  canary: string;
}

function selectorOf(service: KubeObject): Record<string, string> {
  const selector = service.spec?.selector;
  return isRecord(selector) ? { ...(selector as Record<string, string>) } : {};
}

/** The stable Service's selector as the user wrote it (our narrowing taken out). */
function originalSelector(stable: KubeObject, label: string): Record<string, string> {
  const selector = selectorOf(stable);
  const recorded = stable.metadata.annotations?.[ORIGINAL_SELECTOR_ANNOTATION];
  if (recorded === undefined) return selector;
  const value = JSON.parse(recorded) as string | null;
  if (value === null) delete selector[label];
  else selector[label] = value;
  return selector;
}

/** The `<service>-canary` Service: the stable one's ports and selector, narrowed to the canary revision, owned by the workload. */
export function desiredCanaryService(stable: KubeObject, routing: TrafficRouting, revisions: RevisionSelector, owner: OwnerReference | null): KubeObject {
  const spec: Record<string, unknown> = structuredClone(stable.spec ?? {});
  for (const key of ALLOCATED_SPEC_FIELDS) delete spec[key];
  if (Array.isArray(spec.ports)) spec.ports = spec.ports.map((p: Record<string, unknown>) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'nodePort')));
  spec.selector = { ...originalSelector(stable, revisions.label), [revisions.label]: revisions.canary };
  const annotations = { ...(stable.metadata.annotations ?? {}) };
  delete annotations[LAST_APPLIED];
  delete annotations[ORIGINAL_SELECTOR_ANNOTATION];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: canaryServiceName(routing),
      ...(stable.metadata.namespace ? { namespace: stable.metadata.namespace } : {}),
      labels: { ...(stable.metadata.labels ?? {}), [MANAGED_BY_LABEL]: MANAGED_BY },
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(owner ? { ownerReferences: [owner] } : {}),
    },
    spec,
  };
}

/**
 * Create the canary Service, or move its selector to the canary revision (a new release). Refuses a
 * Service of that name that is not ours: routing would send users to someone else's pods.
 */
export function canaryServiceWrites(stable: KubeObject, canary: KubeObject | null, routing: TrafficRouting, revisions: RevisionSelector, owner: OwnerReference | null): KubeWrite[] {
  const desired = desiredCanaryService(stable, routing, revisions, owner);
  if (canary === null) return [{ verb: 'create', object: desired, reason: `create Service ${desired.metadata.name} selecting ${revisions.label}=${revisions.canary}` }];
  if (!isOurs(canary)) {
    throw new TrafficObjectError(`Service ${canary.metadata.name} exists and is not ours (no label ${MANAGED_BY_LABEL}=${MANAGED_BY}); rename it or delete it: the canary Service takes that name`);
  }
  if (selectorOf(canary)[revisions.label] === revisions.canary) return [];
  return [{
    verb: 'patch', ref: refOf(canary, stable.metadata.namespace ?? ''), patchType: 'merge',
    patch: { spec: { selector: { [revisions.label]: revisions.canary } } },
    ...(canary.metadata.resourceVersion ? { resourceVersion: canary.metadata.resourceVersion } : {}),
    reason: `Service ${canary.metadata.name} selects ${revisions.label}=${revisions.canary}`,
  }];
}

/** Narrow the stable Service to the stable revision, recording the selector value it replaces (once). */
export function narrowStableServiceWrites(stable: KubeObject, revisions: RevisionSelector): KubeWrite[] {
  if (selectorOf(stable)[revisions.label] === revisions.stable && stable.metadata.annotations?.[ORIGINAL_SELECTOR_ANNOTATION] !== undefined) return [];
  const recorded = stable.metadata.annotations?.[ORIGINAL_SELECTOR_ANNOTATION] ?? JSON.stringify(selectorOf(stable)[revisions.label] ?? null);
  return [{
    verb: 'patch', ref: refOf(stable, ''), patchType: 'merge',
    patch: { metadata: { annotations: { [ORIGINAL_SELECTOR_ANNOTATION]: recorded } }, spec: { selector: { [revisions.label]: revisions.stable } } },
    ...(stable.metadata.resourceVersion ? { resourceVersion: stable.metadata.resourceVersion } : {}),
    reason: `Service ${stable.metadata.name} selects only ${revisions.label}=${revisions.stable} (the stable pods)`,
  }];
}

/** Put the stable Service's selector back exactly as it was, and drop our record of it. */
export function restoreStableServiceWrites(stable: KubeObject, label: string): KubeWrite[] {
  const recorded = stable.metadata.annotations?.[ORIGINAL_SELECTOR_ANNOTATION];
  if (recorded === undefined) return [];
  const value = JSON.parse(recorded) as string | null;
  return [{
    verb: 'patch', ref: refOf(stable, ''), patchType: 'merge',
    patch: { metadata: { annotations: { [ORIGINAL_SELECTOR_ANNOTATION]: null } }, spec: { selector: { [label]: value } } },
    ...(stable.metadata.resourceVersion ? { resourceVersion: stable.metadata.resourceVersion } : {}),
    reason: `Service ${stable.metadata.name} selects what it selected before the release`,
  }];
}

/** Delete the canary Service, if it is ours. */
export function removeCanaryServiceWrites(canary: KubeObject | null): KubeWrite[] {
  if (canary === null || !isOurs(canary) || canary.metadata.deletionTimestamp) return [];
  return [{
    verb: 'delete', ref: refOf(canary, ''),
    ...(canary.metadata.resourceVersion ? { resourceVersion: canary.metadata.resourceVersion } : {}),
    reason: `delete Service ${canary.metadata.name}`,
  }];
}
