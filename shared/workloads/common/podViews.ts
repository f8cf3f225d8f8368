// The workload's live pods one by one (WorkloadView.pods), for pod hooks and the per-pod update
// timeout: read from the driver's own revision → pods grouping (WorkloadDriver.revisionMembers),
// so each pod carries the revision id the view counts it under and no kind is known here.
import type { KubeObject } from '../../kube/types.ts';
import type { PodView } from '../../rollout/types.ts';
import { isRecord } from '../../json.ts';
import type { RevisionMembers } from '../driver.ts';
import { spec, status } from './objects.ts';
import { IN_PLACE_UPDATE_READY, inPlaceUpdating } from './pods.ts';
import { isPodReady } from './pods.ts';
import { isTerminating } from './revisions.ts';

export function podViews(members: readonly RevisionMembers[]): PodView[] {
  return members.flatMap((m) => m.pods.filter((p) => !isTerminating(p)).map((p) => podView(p, m.id)));
}

function podView(pod: KubeObject, revision: string): PodView {
  const containers = Array.isArray(spec(pod).containers) ? (spec(pod).containers as unknown[]).filter(isRecord).map((c) => String(c.name ?? '')) : [];
  return {
    name: pod.metadata.name,
    revision,
    ready: isPodReady(pod) && !inPlaceUpdating(pod),
    phase: typeof status(pod).phase === 'string' ? (status(pod).phase as string) : '',
    condition: lastFalseCondition(pod),
    since: sinceOnRevision(pod),
    containers,
  };
}

function conditions(pod: KubeObject): Record<string, unknown>[] {
  const c = status(pod).conditions;
  return Array.isArray(c) ? c.filter(isRecord) : [];
}

/** "Ready False (ContainersNotReady: containers with unready status: [app])": the latest condition that is not True. */
function lastFalseCondition(pod: KubeObject): string | null {
  const bad = conditions(pod).filter((c) => c.status !== 'True').sort((a, b) => String(b.lastTransitionTime ?? '').localeCompare(String(a.lastTransitionTime ?? '')))[0];
  if (!bad) return null;
  const why = [bad.reason, bad.message].filter((v) => typeof v === 'string' && v !== '').join(': ');
  return `${String(bad.type)} ${String(bad.status)}${why ? ` (${why})` : ''}`;
}

/** Its creation, or the start of an in-place update (Kruise flips InPlaceUpdateReady to False then). */
function sinceOnRevision(pod: KubeObject): string | null {
  const created = pod.metadata.creationTimestamp ?? null;
  const gate = conditions(pod).find((c) => c.type === IN_PLACE_UPDATE_READY);
  const inPlace = typeof gate?.lastTransitionTime === 'string' ? gate.lastTransitionTime : null;
  if (inPlace === null) return created;
  if (created === null) return inPlace;
  return Date.parse(inPlace) > Date.parse(created) ? inPlace : created;
}
