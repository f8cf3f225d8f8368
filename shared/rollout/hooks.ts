// Pod hooks (seed 003's lifecycle): `preUpdate` must succeed on a pod before the batch may replace
// it, `postUpdate` runs once the pod is Ready on the new revision, and a batch is not done before
// every postUpdate of its pods has succeeded. The driver's view orders the pods its batches
// replace (WorkloadView.toReplace: a StatefulSet's highest ordinal first, a Deployment's in the
// ReplicaSet controller's deletion order); the batch moves only as many pods as the front of that
// order has cleared, so a pod is never replaced before its preUpdate succeeded. At most the
// workload's maxUnavailable pods (at least 1) are between their preUpdate and their postUpdate at
// once, as seed 003 updates one pod at a time within maxUnavailable.
// Each call is an Invocation; the reconcile records it Started before making it (results.ts
// markStarted) and its outcome after, so a crash or a duplicate pass never repeats a hook that
// succeeded, and a call whose outcome was lost is delivered again with the same idempotency key.
import type { Hook, HookPhase, HookRecord } from './checkTypes.ts';
import type { Draft, Waiting } from './draft.ts';
import { failRelease } from './failure.ts';
import { callContext } from './gates.ts';
import { instant, oneLine } from './message.ts';
import type { PodView, Release } from './types.ts';

/** A Started call older than its timeout plus this lost its outcome (the reconcile died during it). */
export const LOST_CALL_GRACE_SECONDS = 30;

export function hookKey(phase: HookPhase, pod: string): string {
  return `${phase}/${pod}`;
}

/** (release, pod, hook, attempt): a rollback reuses its release's id, so the kind is part of the release. */
export function idempotencyKey(rel: Release, phase: HookPhase, pod: string, attempt: number): string {
  return `${rel.id}${rel.kind === 'release' ? '' : `-${rel.kind}`}/${pod}/${phase}/${attempt}`;
}

export function hasHooks(d: Draft): boolean {
  return (d.spec.lifecycle?.preUpdate ?? null) !== null || (d.spec.lifecycle?.postUpdate ?? null) !== null;
}

/**
 * How many pods the batch may have on the target revision now: `desired`, less the pods it would
 * replace whose preUpdate has not succeeded yet. Emits the preUpdate calls due, within the
 * in-flight budget, and says what the batch waits for.
 */
export function clearedTarget(d: Draft, rel: Release, desired: number): number {
  if (!hasHooks(d)) return desired;
  const pre = d.spec.lifecycle?.preUpdate ?? null;
  const pods = d.view.pods;
  const old = d.view.toReplace;
  const need = Math.max(0, old.length - (d.view.replicas - desired));
  if (pods === undefined) return desired - need; // not observed pod by pod: replace nothing
  if (pre === null || need === 0) return desired;
  const next = old.slice(0, need);
  let cleared = 0;
  while (cleared < next.length && passed(rel, 'preUpdate', next[cleared] as string)) cleared += 1;
  let slots = Math.max(1, d.view.maxUnavailable) - inFlight(d, rel, pods, old);
  for (const pod of next.slice(cleared)) {
    // A pod whose preUpdate already started is counted in flight; a new one takes a slot.
    if (rel.hooks?.[hookKey('preUpdate', pod)] === undefined) {
      if (slots <= 0) break;
      slots -= 1;
    }
    if (!call(d, rel, 'preUpdate', pre, pods.find((p) => p.name === pod) ?? { name: pod, revision: '', containers: [] })) return desired - need;
  }
  if (cleared > 0) d.actions.push({ type: 'replace-first', pods: next.slice(0, cleared) });
  if (cleared < next.length) {
    const pod = next[cleared] as string;
    d.waiting ??= hookWaiting(rel, 'preUpdate', pod, rel.hooks?.[hookKey('preUpdate', pod)]);
  }
  return desired - need + cleared;
}

/**
 * Runs postUpdate on every pod this release brought to the target revision once it is Ready; true
 * once each has succeeded (then the batch may be done). Pods not Ready yet are the readiness
 * check's business. "Brought": not on the target when the release began, or through this
 * release's preUpdate (broughtBy; a rollback's target is the stable revision, whose untouched pods
 * get no postUpdate).
 */
export function postUpdatesDone(d: Draft, rel: Release): boolean {
  const post = d.spec.lifecycle?.postUpdate ?? null;
  if (post === null) return true;
  const pods = d.view.pods;
  if (pods === undefined) return false;
  let done = true;
  for (const pod of pods) {
    if (pod.revision !== rel.targetRevision || !pod.ready || !broughtBy(rel, pod) || passed(rel, 'postUpdate', pod.name)) continue;
    done = false;
    if (!call(d, rel, 'postUpdate', post, pod)) return false;
    d.waiting ??= hookWaiting(rel, 'postUpdate', pod.name, rel.hooks?.[hookKey('postUpdate', pod.name)]);
  }
  return done;
}

/**
 * Pods between their preUpdate and the end of their update: cleared or being prepared but not
 * replaced yet, on the target but not Ready or not through postUpdate, and missing (being recreated).
 */
function inFlight(d: Draft, rel: Release, pods: PodView[], old: readonly string[]): number {
  const oldSet = new Set(old);
  const preparing = old.filter((p) => rel.hooks?.[hookKey('preUpdate', p)] !== undefined).length;
  const settling = pods.filter((p) => !oldSet.has(p.name) && p.revision === rel.targetRevision && broughtBy(rel, p) &&
    !(p.ready && (d.spec.lifecycle?.postUpdate == null || passed(rel, 'postUpdate', p.name)))).length;
  const missing = Math.max(0, d.view.replicas - pods.length);
  return preparing + settling + missing;
}

/**
 * A pod on the target revision that this release brought there: it went through this release's
 * preUpdate, or it was not on the target when the release started (Release.podsAtStart: a new pod,
 * a pod recreated or updated in place since). Membership, not time: a creationTimestamp has whole
 * seconds and startedAt milliseconds, so a pod created in the release's first second looked older
 * than the release and never got its postUpdate (issue 21) — nor did the pods an automatic rollback
 * recreates, which its very next pass puts back within the same second.
 */
export function broughtBy(rel: Release, pod: PodView): boolean {
  if (rel.hooks?.[hookKey('preUpdate', pod.name)] !== undefined) return true;
  if (rel.podsAtStart !== undefined) return !rel.podsAtStart.includes(pod.name);
  // A release started before pods were observed one by one (STATE of an older version, or hooks
  // added mid-release): its pods' times are all there is, compared at the timestamps' own granularity.
  return pod.since !== null && Date.parse(pod.since) >= Math.floor(Date.parse(rel.startedAt) / 1000) * 1000;
}

/** Succeeded, or failed during a rollback (a rollback is never held back by a hook: hooks.ts header). */
function passed(rel: Release, phase: HookPhase, pod: string): boolean {
  const r = rel.hooks?.[hookKey(phase, pod)];
  return r !== undefined && (r.status === 'Succeeded' || (r.status === 'Failed' && rel.kind === 'rollback'));
}

/**
 * Emits the call of `phase` on `pod` when one is due (first attempt, retry after its backoff, or a
 * redelivery of a call whose outcome was lost); false when the hook failed for good (the release
 * has been failed then).
 */
function call(d: Draft, rel: Release, phase: HookPhase, hook: Hook, target: Pick<PodView, 'name' | 'revision' | 'containers'>): boolean {
  const pod = target.name;
  const record = rel.hooks?.[hookKey(phase, pod)];
  const now = d.now.getTime();
  let attempt: number;
  if (record === undefined) attempt = 1;
  else if (record.status === 'Succeeded') return true;
  else if (record.status === 'Failed') {
    if (rel.kind === 'rollback') return true;
    failRelease(d, rel, `${phase} hook on pod ${pod} failed after ${record.attempt} attempt${record.attempt === 1 ? '' : 's'}: ${record.output}`, {
      kind: 'Hook', object: `pod/${pod}`, field: null, detail: `${phase}: ${record.output}`, since: record.at, until: null,
    });
    return false;
  } else if (record.status === 'Waiting') {
    const at = Date.parse(record.retryAt ?? record.at);
    if (now < at) {
      d.wakeAt(new Date(at));
      d.requeueAt(new Date(at));
      return true;
    }
    attempt = record.attempt + 1;
  } else {
    const lostAt = Date.parse(record.at) + (hook.timeoutSeconds + LOST_CALL_GRACE_SECONDS) * 1000;
    if (now < lostAt) {
      d.wakeAt(new Date(lostAt));
      return true;
    }
    if (record.deliveries > hook.retries) {
      failRelease(d, rel, `${phase} hook on pod ${pod}: the outcome of attempt ${record.attempt} was lost ${record.deliveries} times`, {
        kind: 'Hook', object: `pod/${pod}`, field: null, detail: `${phase}: outcome lost`, since: record.at, until: null,
      });
      return false;
    }
    attempt = record.attempt; // the same key again: the target answers a call it already took once
  }
  d.invocations.push({
    type: 'run-hook', phase, pod, podRevision: target.revision, container: (hook.target.kind === 'exec' ? hook.target.container : null) ?? target.containers[0] ?? '',
    attempt, idempotencyKey: idempotencyKey(rel, phase, pod, attempt), hook, context: callContext(d, rel),
  });
  return true;
}

function hookWaiting(rel: Release, phase: HookPhase, pod: string, record: HookRecord | undefined): Waiting {
  const object = `pod/${pod}`;
  if (record === undefined || record.status === 'Succeeded') return { kind: 'Hook', object, text: `waiting for a slot to run the ${phase} hook on pod ${pod}` };
  if (record.status === 'Started') return { kind: 'Hook', object, text: `running the ${phase} hook on pod ${pod} (attempt ${record.attempt}, since ${instant(record.at)})` };
  if (record.status === 'Waiting') {
    return { kind: 'Hook', object, text: `${phase} hook on pod ${pod}: attempt ${record.attempt} failed (${oneLine(record.output, 120)}); next attempt at ${instant(record.retryAt ?? record.at)}` };
  }
  return { kind: 'Hook', object, text: `${phase} hook on pod ${pod} failed: ${oneLine(record.output, 120)}` };
}
