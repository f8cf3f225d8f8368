// What an http or lambda hook or gate is told: one JSON body naming the rollout, the release, the
// step and the revision, and for a hook the pod, its revision, the phase, the attempt and the
// idempotency key (also sent as the Idempotency-Key header of http calls). The README documents it.
import type { Invocation } from '../../rollout/checkTypes.ts';

export interface CallBody {
  type: 'hook' | 'gate';
  rollout: { cluster: string; namespace: string; name: string };
  releaseId: string;
  step: number;
  revision: string;
  /** Hooks: the pod, the revision it runs now, the phase, the attempt and the idempotency key. */
  pod?: string;
  podRevision?: string;
  phase?: 'preUpdate' | 'postUpdate';
  attempt?: number;
  idempotencyKey?: string;
  /** Gates: the gate's name. */
  gate?: string;
}

export function callBody(call: Invocation): CallBody {
  const base = { rollout: call.context.rollout, releaseId: call.context.releaseId, step: call.context.step, revision: call.context.revision };
  if (call.type === 'check-gate') return { type: 'gate', ...base, gate: call.gate.name };
  return { type: 'hook', ...base, pod: call.pod, podRevision: call.podRevision, phase: call.phase, attempt: call.attempt, idempotencyKey: call.idempotencyKey };
}

/** A target's words, short enough for a reason. */
export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The message of an error and of its causes, for a reason ("fetch failed: connect ECONNREFUSED 127.0.0.1:9"). */
export function errorText(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i += 1) {
    parts.push(e instanceof Error ? (e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : e.message) : describe(e));
    // A WebSocket ErrorEvent (client-node's Exec) carries its error in `error`.
    e = e instanceof Error ? e.cause : typeof e === 'object' && e !== null && 'error' in e ? (e as { error: unknown }).error : undefined;
  }
  return excerpt([...new Set(parts)].join(': '));
}

function describe(v: unknown): string {
  if (typeof v !== 'object' || v === null) return String(v);
  const o = v as { message?: unknown; type?: unknown };
  if (typeof o.message === 'string' && o.message !== '') return o.message;
  return typeof o.type === 'string' ? o.type : JSON.stringify(v).slice(0, 200);
}
