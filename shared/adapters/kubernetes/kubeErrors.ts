// Translates Kubernetes API failures into the repo's named errors, so callers branch on classes
// (ConflictError → requeue, NotFoundError → object gone, GoneError → relist) and never on HTTP codes.
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  KindNotServedError,
  NotFoundError,
  TerminalError,
  TransientError,
  UnauthorizedError,
  ValidationError,
  type FieldIssue,
} from '../../errors.ts';

/**
 * The apiserver could not answer now (429, 5xx, a timeout, a connection error; `status` 0 when no
 * response came back): a transient fault. `retryAfterSeconds` is its Retry-After header, if any.
 */
export class KubeApiError extends TransientError {
  readonly status: number;
  readonly reason: string | undefined;
  constructor(message: string, status: number, reason: string | undefined, options?: ErrorOptions & { retryAfterSeconds?: number | null }) {
    super(message, options);
    this.status = status;
    this.reason = reason;
  }
}

/** Any other status (405, 406, 415, 501…): our request is wrong, and repeating it cannot help. */
export class KubeRequestError extends TerminalError {
  readonly status: number;
  constructor(message: string, status: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/**
 * The apiserver rejected the object or patch (400/422). `issues` are the Status causes (field +
 * reason); `message` is the apiserver's own sentence, prefixed with the request.
 */
export class InvalidObjectError extends ValidationError {
  constructor(message: string, issues: FieldIssue[], options?: ErrorOptions) {
    super(issues, options);
    this.message = message;
  }
}

/** The parts of a metav1.Status we use. */
export interface KubeStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; causes?: { field?: string; message?: string; reason?: string }[] };
}

/**
 * Maps a failure of one request to a named error carrying the original as `cause`.
 * `what` names the request for humans, e.g. "patch apps/v1 Deployment web/api".
 * Accepts the transport's KubeHttpError ({code, body}; client-node's ApiException has the same
 * shape), a connection error (a string `code`, status 0), or a Status object from a watch ERROR event.
 */
export function toKubeError(err: unknown, what: string, retryAfterSeconds: number | null = null): Error {
  const code = httpStatusOf(err);
  const status = statusBodyOf(err);
  const detail = status?.message ?? (err instanceof Error && code === 0 ? err.message : undefined);
  const message = detail ? `${what}: ${detail}` : `${what}: HTTP ${code}`;
  const options = { cause: err };
  switch (code) {
    case 401:
      return new UnauthorizedError(message, options);
    case 403:
      return new ForbiddenError(message, options);
    case 404:
      return notServed(status) ? new KindNotServedError(`${what}: the cluster does not serve this resource (${detail ?? 'HTTP 404'}): the CRD that defines it is not installed, or not served yet`, options) : new NotFoundError(message, options);
    case 409:
      return new ConflictError(message, options);
    case 410:
      return new GoneError(message, options);
    case 400:
    case 422:
      return new InvalidObjectError(message, issuesOf(status, what), options);
    default:
      if (code === 0 || code === 408 || code === 429 || (code >= 500 && code !== 501)) {
        return new KubeApiError(message, code, status?.reason, { ...options, retryAfterSeconds });
      }
      return new KubeRequestError(message, code, options);
  }
}

/** Seconds of a Retry-After header (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterSeconds(header: string | null | undefined, now: Date): number | null {
  if (header === undefined || header === null || header.trim() === '') return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

function httpStatusOf(err: unknown): number {
  if (typeof err !== 'object' || err === null) return 0;
  const e = err as { code?: unknown; statusCode?: unknown; kind?: unknown };
  if (e.kind === 'Status' && typeof e.code === 'number') return e.code;
  if (typeof e.statusCode === 'number') return e.statusCode;
  // ApiException.code is the HTTP status; Node system errors carry string codes ("ECONNREFUSED").
  // A DOMException's numeric code is no HTTP status: the request deadline (AbortSignal.timeout)
  // rejects with TimeoutError, code 23, which is "no answer", not a terminal "HTTP 23" (soak).
  if (typeof e.code === 'number' && !(err instanceof DOMException) && e.code >= 100 && e.code <= 599) return e.code;
  return 0;
}

/** The Status document the apiserver sent with the failure, if any (ApiException.body is its raw text). */
export function statusBodyOf(err: unknown): KubeStatus | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  if ((err as { kind?: unknown }).kind === 'Status') return err as KubeStatus;
  const body = (err as { body?: unknown }).body;
  if (typeof body === 'object' && body !== null) return body as KubeStatus;
  if (typeof body !== 'string' || body === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as KubeStatus) : undefined;
  } catch {
    return { message: body };
  }
}

/**
 * A 404 for the resource itself: the apiserver's not-found handler answers "the server could not
 * find the requested resource" with no details (or "404 page not found"), whereas a missing object
 * is named in details.name ("deployments.apps \"web\" not found").
 */
function notServed(status: KubeStatus | undefined): boolean {
  if (status?.details && 'name' in status.details) return false;
  return /could not find the requested resource|404 page not found/.test(status?.message ?? '');
}

function issuesOf(status: KubeStatus | undefined, what: string): FieldIssue[] {
  const causes = status?.details?.causes ?? [];
  const issues = causes
    .filter((c) => c.message)
    .map((c) => ({ path: c.field ?? what, reason: c.message ?? '' }));
  if (issues.length > 0) return issues;
  return [{ path: what, reason: status?.message ?? 'rejected by the apiserver' }];
}
