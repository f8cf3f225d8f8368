// The traffic bench's reading (bench/trafficApplied.ts): for each traffic step of a release, the time
// from its batch Available to its weight served at the proxy, in parts, read from the apiserver's
// audit log and the probe's answers alone (one clock: this machine's):
//   available  the batch Available: kwok's Ready transition of the k-th pod of the new ReplicaSet
//              (request body, full precision; the Deployment's minReadySeconds is 0, so Ready is
//              Available, as the Deployment driver counts it: shared/workloads/deployment/view.ts).
//              Not the stable pods' deletions: the planner's batchDone lets the stable revision keep
//              pods it is still asked for (shared/rollout/progression.ts);
//   services   our last Service write between the two (routeStep points the canary Service at the
//              batch's pods first, then waits the grace period: shared/rollout/routing.ts), or null;
//   write      our HTTPRoute patch carrying the step's weight (requestReceivedTimestamp; its response
//              body gives the route's new generation);
//   accepted   the proxy's first HTTPRoute status write after it whose Accepted condition has that
//              generation (what the gateway provider's `pending` waits for);
//   served     the first canary answer of the first run of `window` consecutive 200s after the write
//              whose canary share is within `tolerancePoints` of the weight (the probe, through the proxy).
import type { AuditEvent } from '../../shared/adapters/local/controlPlane.ts';
import { ROLLOUTS_USER } from '../../shared/adapters/local/controlPlane.ts';
import type { ProbeAnswer } from '../testbed/dataplane/load.ts';
import { auditMs, component, receivedMs } from './audit.ts';

export interface TrafficStep {
  /** The step's traffic, percent. */
  weight: number;
  /** Pods on the new revision the step asks for (absolute). */
  replicas: number;
}

export interface StepReadOptions {
  /** The ReplicaSet of the release's new revision. */
  canaryReplicaSet: string;
  /** The new revision's pod-template-hash, as the pods answer it. */
  canaryRevision: string;
  /** trafficRoutings[0].service: the canary backend is `<service>-canary`. */
  service: string;
  /** The proxy's user (its status writes). */
  proxyUser: string;
  gracePeriodSeconds: number;
  window: number;
  tolerancePoints: number;
}

export interface StepTiming {
  step: number;
  weight: number;
  /** Epoch ms of each point (null: no Services write in this step). */
  availableAt: number;
  servicesAt: number | null;
  writeAt: number;
  acceptedAt: number;
  servedAt: number;
  /** available → our set-traffic write (the Services write and one grace period in a release's first step) */
  availableToWriteMs: number;
  /** our write → the proxy's Accepted status for the new generation */
  writeToAcceptedMs: number;
  /** that status → the first canary answer at the step's share */
  acceptedToServedMs: number;
  /** available → served: the figure */
  totalMs: number;
  /** our write + gracePeriodSeconds − served: how long before the step counted as live the proxy served it (negative: after) */
  graceMarginMs: number;
  /** How long the matching window of answers took: the probe's resolution. */
  windowMs: number;
}

interface Condition { type?: string; status?: string; lastTransitionTime?: string; observedGeneration?: number }
interface RouteObject { metadata?: { generation?: number }; spec?: { rules?: { backendRefs?: { name?: string; weight?: number }[] }[] }; status?: { parents?: { conditions?: Condition[] }[] } }

const ok = (e: AuditEvent): boolean => (e.responseStatus?.code ?? 500) < 300;
const byTime = (a: AuditEvent, b: AuditEvent): number => receivedMs(a) - receivedMs(b);

/** A ReplicaSet's pods are named `<replicaset>-<5 characters>`. */
function ownerOf(pod: string): string {
  return pod.slice(0, pod.lastIndexOf('-'));
}

/** The earliest time per pod, sorted: the k-th entry is when the k-th pod got there. */
function firstPerPod(pairs: [string, number][]): number[] {
  const first = new Map<string, number>();
  for (const [pod, at] of pairs) if (!first.has(pod) || at < (first.get(pod) as number)) first.set(pod, at);
  return [...first.values()].sort((a, b) => a - b);
}

function readyTransition(e: AuditEvent): number | null {
  const conditions = (e.requestObject as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready' && c.status === 'True');
  return ready?.lastTransitionTime ? auditMs(ready.lastTransitionTime) : null;
}

/** The canary backend's weight on the route's first rule, after our write. */
function canaryWeight(route: RouteObject | undefined, service: string): number | null {
  return route?.spec?.rules?.[0]?.backendRefs?.find((b) => b.name === `${service}-canary`)?.weight ?? null;
}

/** The generation every parent has accepted in this status write (-1 when one has not). */
function acceptedGeneration(e: AuditEvent): number {
  const parents = (e.requestObject as RouteObject | undefined)?.status?.parents ?? [];
  if (parents.length === 0) return -1;
  return Math.min(...parents.map((p) => {
    const accepted = p.conditions?.find((c) => c.type === 'Accepted' && c.status === 'True');
    return accepted?.observedGeneration ?? -1;
  }));
}

/**
 * The first canary answer of the first `window` consecutive 200s in (from, to) whose canary share is
 * within `tolerance` points of `weight`, and how long that window took; null if none.
 */
export function servedAt(answers: readonly ProbeAnswer[], from: number, to: number, canary: string, weight: number, window: number, tolerance: number): { at: number; windowMs: number } | null {
  const ok200 = answers.filter((a) => a.status === 200 && a.at > from && a.at < to);
  let canaries = 0;
  for (let i = 0; i < ok200.length; i += 1) {
    if (ok200[i]?.revision === canary) canaries += 1;
    if (i >= window && ok200[i - window]?.revision === canary) canaries -= 1;
    if (i < window - 1) continue;
    const start = i - window + 1;
    if (Math.abs((100 * canaries) / window - weight) > tolerance || canaries === 0) continue;
    const first = ok200.slice(start, i + 1).find((a) => a.revision === canary) as ProbeAnswer;
    return { at: first.at, windowMs: (ok200[i] as ProbeAnswer).at - (ok200[start] as ProbeAnswer).at };
  }
  return null;
}

/** The timings of one release's traffic steps; a step that cannot be read is a problem, never a guess. */
export function stepTimings(events: readonly AuditEvent[], answers: readonly ProbeAnswer[], steps: readonly TrafficStep[], o: StepReadOptions): { timings: StepTiming[]; problems: string[] } {
  const problems: string[] = [];
  const readyAt = firstPerPod(events
    .filter((e) => component(e) === 'kwok' && e.objectRef?.resource === 'pods' && e.objectRef.subresource === 'status' && ownerOf(e.objectRef.name ?? '') === o.canaryReplicaSet)
    .flatMap((e) => {
      const t = readyTransition(e);
      return t === null ? [] : [[e.objectRef?.name ?? '', t] as [string, number]];
    }));
  const ours = (resource: string) => events.filter((e) => e.user.username === ROLLOUTS_USER && ok(e) && e.objectRef?.resource === resource && !e.objectRef.subresource && ['create', 'patch', 'update'].includes(e.verb)).sort(byTime);
  const routeWrites = ours('httproutes');
  const serviceWrites = ours('services');
  const statusWrites = events.filter((e) => e.user.username === o.proxyUser && ok(e) && e.objectRef?.resource === 'httproutes' && e.objectRef.subresource === 'status').sort(byTime);

  const timings: StepTiming[] = [];
  let after = -Infinity;
  for (const [j, step] of steps.entries()) {
    const label = `step ${j + 1} (${step.weight}%)`;
    const write = routeWrites.find((e) => receivedMs(e) > after && canaryWeight(e.responseObject as RouteObject | undefined, o.service) === step.weight);
    if (!write) {
      problems.push(`${label}: no route write of ours carries weight ${step.weight} (level RequestResponse for our httproutes writes?)`);
      continue;
    }
    const writeAt = receivedMs(write);
    after = writeAt;
    const availableAt = readyAt[step.replicas - 1];
    if (availableAt === undefined) {
      problems.push(`${label}: no Ready transition of pod ${step.replicas} of ${o.canaryReplicaSet} in the log`);
      continue;
    }
    if (availableAt > writeAt) {
      problems.push(`${label}: the weight was written ${(availableAt - writeAt).toFixed(0)} ms before the batch was Available`);
      continue;
    }
    const generation = (write.responseObject as RouteObject | undefined)?.metadata?.generation ?? Infinity;
    const accepted = statusWrites.find((e) => receivedMs(e) >= writeAt && acceptedGeneration(e) >= generation);
    if (!accepted) {
      problems.push(`${label}: no status write of ${o.proxyUser} accepts generation ${generation}`);
      continue;
    }
    const next = routeWrites.find((e) => receivedMs(e) > writeAt);
    const served = servedAt(answers, writeAt, next ? receivedMs(next) : Infinity, o.canaryRevision, step.weight, o.window, o.tolerancePoints);
    if (!served) {
      problems.push(`${label}: the probe never saw the canary at ${step.weight}% (±${o.tolerancePoints}) before the route's next write`);
      continue;
    }
    const services = serviceWrites.filter((e) => receivedMs(e) >= availableAt && receivedMs(e) <= writeAt).pop();
    const acceptedAt = receivedMs(accepted);
    timings.push({
      step: j + 1,
      weight: step.weight,
      availableAt,
      servicesAt: services ? receivedMs(services) : null,
      writeAt,
      acceptedAt,
      servedAt: served.at,
      availableToWriteMs: writeAt - availableAt,
      writeToAcceptedMs: acceptedAt - writeAt,
      acceptedToServedMs: served.at - acceptedAt,
      totalMs: served.at - availableAt,
      graceMarginMs: writeAt + o.gracePeriodSeconds * 1000 - served.at,
      windowMs: served.windowMs,
    });
  }
  return { timings, problems };
}
