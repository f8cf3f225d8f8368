// Named error classes shared by every layer. Each carries `cause` when it wraps another error, and
// says itself what running the same work again can do about it (`recovery`), so callers branch on
// that property, never on a list of classes (shared/reconcile/reconcile.ts retries a transient
// failure and records a terminal one as Degraded).

/**
 * What running the same work again can do about an error:
 *  - `transient`: it may pass by itself (a throttle, a 5xx, a timeout); nothing was decided from it, so run again later;
 *  - `terminal`: it cannot pass until something outside changes (a permission, a registration, the input itself): stop retrying and say why;
 *  - `conflict`: someone else wrote first; run again at once, with fresh state;
 *  - `unknown`: the error says nothing about it (not found, a refused command, a bug): the caller decides.
 */
export type Recovery = 'transient' | 'terminal' | 'conflict' | 'unknown';

export class RolloutsError extends Error {
  readonly recovery: Recovery = 'unknown';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The error's own `recovery`; any error that is not ours says nothing. */
export function recoveryOf(err: unknown): Recovery {
  return err instanceof RolloutsError ? err.recovery : 'unknown';
}

/** One problem with user input: the field path (e.g. "spec.strategy.canary.steps[1].replicas") and why. */
export interface FieldIssue {
  path: string;
  reason: string;
}

/** Bad input. Nothing was changed, and the same input fails the same way. */
export class ValidationError extends RolloutsError {
  override readonly recovery: Recovery = 'terminal';
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], options?: ErrorOptions) {
    super(issues.map((i) => `${i.path}: ${i.reason}`).join('; '), options);
    this.issues = issues;
  }
}

export class NotFoundError extends RolloutsError {}

/** Someone else wrote first (Kubernetes 409 or a failed DynamoDB condition); retry soon with fresh state. */
export class ConflictError extends RolloutsError {
  override readonly recovery: Recovery = 'conflict';
}

/** The STATE item changed since it was read. */
export class StaleStateError extends ConflictError {}

/** Another Rollout already manages the workload (one Rollout per workload). */
export class WorkloadClaimedError extends ConflictError {
  /** Name of the Rollout that owns the workload (same cluster and namespace). */
  readonly owner: string;
  constructor(message: string, owner: string, options?: ErrorOptions) {
    super(message, options);
    this.owner = owner;
  }
}

/**
 * Invalid configuration (environment, flags, a cluster registration that cannot work as written):
 * it stays so until someone fixes it.
 */
export class ConfigError extends RolloutsError {
  override readonly recovery: Recovery = 'terminal';
}

/** A command that is not allowed now (e.g. approve when not awaiting approval). */
export class CommandRejectedError extends RolloutsError {}

/** The caller's identity may not do this (Kubernetes 403, RBAC): a missing permission, not a transient fault. */
export class ForbiddenError extends RolloutsError {
  override readonly recovery: Recovery = 'terminal';
}

/** The credentials were rejected (Kubernetes 401): the token expired or the identity is not mapped. */
export class UnauthorizedError extends RolloutsError {
  override readonly recovery: Recovery = 'terminal';
}

/** The requested history is gone (Kubernetes 410, e.g. a watch from a compacted resourceVersion): relist. */
export class GoneError extends RolloutsError {}

/**
 * A fault that may pass by itself (an apiserver 429/5xx or timeout, DynamoDB throttling after the
 * SDK's own retries): nothing was decided from it, and the same work should simply run again later.
 * `retryAfterSeconds` is the server's own hint (Retry-After) when it gave one.
 */
export class TransientError extends RolloutsError {
  override readonly recovery: Recovery = 'transient';
  readonly retryAfterSeconds: number | null;
  constructor(message: string, options?: ErrorOptions & { retryAfterSeconds?: number | null }) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds ?? null;
  }
}

/**
 * A fault that running again cannot fix (no driver for the kind, an invalid stored spec, a cluster
 * that is not registered, a permission the identity lacks): the rollout goes Degraded with the
 * reason at once, and the message that asked for the pass is not redelivered.
 */
export class TerminalError extends RolloutsError {
  override readonly recovery: Recovery = 'terminal';
}

/**
 * The cluster does not serve the resource at all (a 404 for the collection, not for an object in
 * it): the CRD that defines the kind is not installed, or not served yet. Terminal for the pass;
 * the resync looks again.
 */
export class KindNotServedError extends TerminalError {}

/** A process of the local Kubernetes control plane failed to start, become ready or stop. */
export class ControlPlaneError extends RolloutsError {
  /** Which component failed (etcd, kube-apiserver, kwok, ...). */
  readonly component: string;
  constructor(component: string, message: string, options?: ErrorOptions) {
    super(`${component}: ${message}`, options);
    this.component = component;
  }
}
