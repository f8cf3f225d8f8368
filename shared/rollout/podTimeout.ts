// Seed 003's IsUpdateTimedOut: a pod that is not Ready on the new revision within
// podUpdateTimeout of getting there (created on it, or its in-place update begun) fails the
// release, and the reason names the pod, its phase and its last condition. Releases and undos
// only: a rollback is the way back and never fails.
import type { Draft } from './draft.ts';
import { failRelease } from './failure.ts';
import type { Release } from './types.ts';

export function checkPodTimeouts(d: Draft, rel: Release): void {
  const limit = d.spec.podUpdateTimeoutSeconds ?? null;
  if (limit === null || rel.kind === 'rollback' || rel.failure !== null) return;
  const pods = d.view.pods ?? [];
  let late: { name: string; phase: string; condition: string | null; since: number } | null = null;
  for (const pod of pods) {
    if (pod.revision !== rel.targetRevision || pod.ready || pod.since === null) continue;
    // The clock starts with the release at the latest: a pod that was already slow before it began gets the full time.
    const since = Math.max(Date.parse(pod.since), Date.parse(rel.startedAt));
    const deadline = since + limit * 1000;
    if (d.now.getTime() < deadline) {
      d.wakeAt(new Date(deadline));
      continue;
    }
    if (late === null || since < late.since) late = { name: pod.name, phase: pod.phase, condition: pod.condition, since };
  }
  if (late === null) return;
  const detail = `phase ${late.phase || 'unknown'}${late.condition ? `, ${late.condition}` : ''}`;
  failRelease(d, rel, `pod ${late.name} was not Ready on revision ${rel.targetRevision} within ${limit}s (podUpdateTimeout): ${detail}`, {
    kind: 'PodNotReady', object: `pod/${late.name}`, field: null, detail, since: new Date(late.since).toISOString(), until: null,
  });
}
