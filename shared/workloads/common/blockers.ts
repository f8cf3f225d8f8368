// What keeps pods from becoming Available, read from the objects a driver observed, as kubectl would
// explain a pod: the scheduler's PodScheduled=False message, a container's waiting reason
// (ImagePullBackOff, CrashLoopBackOff…) or last termination, the Ready condition's message; and a
// controller's ReplicaFailure condition (quota, admission). Shared by every driver; each maps its
// objects to revisions. The planner turns them into the reason (shared/rollout/message.ts).
import type { Blocker } from '../../rollout/cause.ts';
import { oneLine as flatten } from '../../rollout/message.ts';
import type { KubeObject } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';
import { condition, status } from './objects.ts';

/** Waiting reasons of a container that is simply starting (kubelet's own start-up states). */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

/** Longest Kubernetes message kept in a blocker: a reason is one line. */
const MESSAGE_MAX = 256;

/** One blocker per pod that is not Ready (terminating pods are on their way out and name nothing). */
export function podBlockers(pods: readonly KubeObject[], revisionOf: (pod: KubeObject) => string | null): Blocker[] {
  const out: Blocker[] = [];
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp || condition(pod, 'Ready')?.status === 'True') continue;
    out.push({ object: `pod/${pod.metadata.name}`, revision: revisionOf(pod), ...podProblem(pod) });
  }
  return out;
}

/** A controller (ReplicaSet, StatefulSet…) that reports it cannot create or delete pods. */
export function replicaFailure(owner: KubeObject, revision: string | null): Blocker | null {
  const failure = condition(owner, 'ReplicaFailure');
  if (failure?.status !== 'True') return null;
  return {
    kind: 'ReplicaFailure',
    object: `${owner.kind.toLowerCase()}/${owner.metadata.name}`,
    revision,
    reason: text(failure.reason) || 'ReplicaFailure',
    message: oneLine(text(failure.message)),
    since: text(failure.lastTransitionTime) || null,
    transient: false,
  };
}

function podProblem(pod: KubeObject): Omit<Blocker, 'object' | 'revision'> {
  const scheduled = condition(pod, 'PodScheduled');
  if (scheduled?.status === 'False') {
    return { kind: 'PodUnschedulable', reason: text(scheduled.reason) || 'Unschedulable', message: oneLine(text(scheduled.message)), since: text(scheduled.lastTransitionTime) || null, transient: false };
  }
  const ready = condition(pod, 'Ready');
  const since = text(ready?.lastTransitionTime) || text(scheduled?.lastTransitionTime) || text(pod.metadata.creationTimestamp) || null;
  const container = containerProblem(pod);
  if (container) return { kind: 'PodNotReady', ...container, since };
  if (!scheduled) return { kind: 'PodNotReady', reason: 'Pending', message: 'not scheduled yet', since, transient: true };
  // Running (or started) but failing its readiness: Kubernetes' own words are on the Ready condition.
  return { kind: 'PodNotReady', reason: text(ready?.reason) || 'NotReady', message: oneLine(text(ready?.message)), since, transient: true };
}

/** The first container (init containers first) that is waiting or has terminated badly. */
function containerProblem(pod: KubeObject): { reason: string; message: string; transient: boolean } | null {
  const st = status(pod);
  const all = [...list(st.initContainerStatuses), ...list(st.containerStatuses)];
  for (const c of all) {
    const state = isRecord(c.state) ? c.state : {};
    const waiting = isRecord(state.waiting) ? state.waiting : null;
    if (waiting) {
      const reason = text(waiting.reason) || 'Waiting';
      return { reason, message: oneLine(text(waiting.message)), transient: STARTING.has(reason) };
    }
    const terminated = isRecord(state.terminated) ? state.terminated : null;
    if (terminated && terminated.reason !== 'Completed') {
      const code = typeof terminated.exitCode === 'number' ? `exit code ${terminated.exitCode}` : '';
      return { reason: text(terminated.reason) || 'Terminated', message: oneLine(text(terminated.message) || code), transient: false };
    }
  }
  return null;
}

function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function oneLine(s: string): string {
  return flatten(s, MESSAGE_MAX);
}
