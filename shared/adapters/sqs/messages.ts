// The bodies the reconcile function receives from SQS: our own reconcile requests (FIFO queue,
// delayed re-runs) and EventBridge events routed by a rule to the trigger queue (watch-proxy's
// "Workload Changed"). Both name a queue key: a rollout's {cluster, namespace, name}, or a fleet's
// {fleet} (only our own messages: events name rollouts); anything else is not ours.
import { isFleetQueueKey, type QueueKey } from '../../fleet/key.ts';
import type { RolloutKey } from '../../rollout/types.ts';
import { isRecord } from '../../json.ts';

/** What SqsReconcileQueue sends: the key's fields, why the reconcile was asked for ('api', 'sweep', 'requeue', 'watch'...) and a watch notice's changes, e.g. "ReplicaSet web-5d4f MODIFIED" (for reading; the reconcile needs only the key). */
export type ReconcileMessage = QueueKey & { reason: string; causes?: string[] };

export interface DecodedTrigger {
  key: QueueKey;
  reason: string;
  /** 'queue' for our own messages, 'event' for EventBridge events. */
  via: 'queue' | 'event';
}

export function encodeReconcileMessage(key: QueueKey, reason: string, causes: string[] = []): string {
  const withCauses = causes.length > 0 ? { causes } : {};
  const message: ReconcileMessage = isFleetQueueKey(key) ? { fleet: key.fleet, reason, ...withCauses } : { cluster: key.cluster, namespace: key.namespace, name: key.name, reason, ...withCauses };
  return JSON.stringify(message);
}

/** The rollout key of an SQS body, or null when the body is not one of ours. */
export function decodeTriggerBody(body: string): DecodedTrigger | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  // An EventBridge event as delivered by an SQS rule target: the envelope, with our key in `detail`.
  if ('detail-type' in parsed && isRecord(parsed.detail)) {
    const key = keyOf(parsed.detail);
    if (!key) return null;
    const reasons = Array.isArray(parsed.detail.reasons) ? parsed.detail.reasons.filter((r): r is string => typeof r === 'string') : [];
    return { key, reason: reasons[0] ?? String(parsed['detail-type']), via: 'event' };
  }
  const key = typeof parsed.fleet === 'string' ? fleetKeyOf(parsed.fleet) : keyOf(parsed);
  if (!key) return null;
  return { key, reason: typeof parsed.reason === 'string' ? parsed.reason : 'unknown', via: 'queue' };
}

function fleetKeyOf(fleet: string): QueueKey | null {
  return fleet === '' || fleet.includes('#') ? null : { fleet };
}

function keyOf(v: Record<string, unknown>): RolloutKey | null {
  const { cluster, namespace, name } = v;
  if (typeof cluster !== 'string' || typeof namespace !== 'string' || typeof name !== 'string') return null;
  if (cluster === '' || namespace === '' || name === '') return null;
  return { cluster, namespace, name };
}

/** What asked for a pass, for the log line that reports it. */
export type Trigger = 'sweep' | 'watch' | 'api' | 'requeue';

/** The trigger of a pass asked for by these messages: the first one's (events are watch notices). */
export function triggerOf(triggers: readonly DecodedTrigger[]): Trigger {
  const first = triggers[0];
  if (!first || first.via === 'event') return 'watch';
  if (first.reason === 'sweep' || first.reason === 'api' || first.reason === 'watch') return first.reason;
  return 'requeue';
}
