// Reading the apiserver's audit log: which requests fall in a time window, whose they are, and
// whether they read or write. Everything on the local control plane authenticates as admin except
// the product, so the other components are told apart by their user agent.
import type { AuditEvent } from '../../shared/adapters/local/controlPlane.ts';
import { ROLLOUTS_USER } from '../../shared/adapters/local/controlPlane.ts';

export const KUBE_READS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);
export const KUBE_WRITES: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Who sent a request, as a short name. 'bench' is the benchmark's own admin client (set-up, its
 * watches and reads), which is nobody's cost.
 */
export function component(e: AuditEvent): string {
  if (e.user.username === ROLLOUTS_USER) return 'serverless-rollouts';
  const agent = e.userAgent ?? '';
  const controller = /^kube-controller-manager\/.*\/([a-z-]+)$/.exec(agent)?.[1];
  if (controller) return controller;
  for (const name of ['kube-controller-manager', 'kube-scheduler', 'kwok', 'kube-apiserver', 'kruise-manager', 'kruise-rollout']) if (agent.startsWith(name)) return name;
  // Argo Rollouts' clients keep client-go's default agent, named after the binary (bench/lib/peerControllers.ts).
  if (agent.startsWith('rollouts-controller/')) return 'argo-rollouts';
  return 'bench';
}

export function isBench(e: AuditEvent): boolean {
  return component(e) === 'bench';
}

/** Microseconds since the epoch of an audit timestamp (RFC 3339 with microseconds). */
export function auditMicros(ts: string | undefined): number {
  if (!ts) return NaN;
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(ts);
  if (!m) return Date.parse(ts) * 1000;
  const fraction = (m[2] ?? '').padEnd(6, '0').slice(0, 6);
  return Date.parse(`${m[1]}Z`) * 1000 + Number(fraction);
}

/** Milliseconds since the epoch, with the microseconds as the fraction. */
export function auditMs(ts: string | undefined): number {
  return auditMicros(ts) / 1000;
}

export function receivedMs(e: AuditEvent): number {
  return auditMs(e.requestReceivedTimestamp);
}

/** Requests received in [fromMs, toMs], optionally in these namespaces only. */
export function inWindow(events: readonly AuditEvent[], fromMs: number, toMs: number, namespaces?: ReadonlySet<string>): AuditEvent[] {
  return events.filter((e) => {
    const t = receivedMs(e);
    return t >= fromMs && t <= toMs && (!namespaces || namespaces.has(e.objectRef?.namespace ?? ''));
  });
}

export interface RequestCounts {
  unit: 'requests';
  total: number;
  reads: number;
  writes: number;
  /** component → requests */
  byComponent: Record<string, number>;
  /** "verb resource[/subresource]" → requests */
  byVerb: Record<string, number>;
}

export function countRequests(events: readonly AuditEvent[]): RequestCounts {
  const byComponent: Record<string, number> = {};
  const byVerb: Record<string, number> = {};
  for (const e of events) {
    const who = component(e);
    byComponent[who] = (byComponent[who] ?? 0) + 1;
    const what = `${e.verb} ${e.objectRef?.resource ?? '?'}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}`;
    byVerb[what] = (byVerb[what] ?? 0) + 1;
  }
  return {
    unit: 'requests',
    total: events.length,
    reads: events.filter((e) => KUBE_READS.has(e.verb)).length,
    writes: events.filter((e) => KUBE_WRITES.has(e.verb)).length,
    byComponent: sortedRecord(byComponent),
    byVerb: sortedRecord(byVerb),
  };
}

function sortedRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
}
