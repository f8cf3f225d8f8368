// HTTP-facing failures and the one mapping from errors to responses. Only this layer knows status
// codes: the core throws named errors (ValidationError, NotFoundError, ConflictError...), and
// request-shape problems are raised here as HttpError with the status they deserve.
import { CommandRejectedError, ConflictError, ForbiddenError, NotFoundError, RolloutsError, TransientError, ValidationError } from '../errors.ts';
import type { FieldIssue } from '../errors.ts';
import type { ApiResponse, ErrorBody } from './types.ts';

/** A request the API refuses with a specific status (400, 404, 405, 409, 413, 422...). */
export class HttpError extends RolloutsError {
  readonly status: number;
  readonly issues: FieldIssue[] | undefined;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, opts: { issues?: FieldIssue[]; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.status = status;
    this.issues = opts.issues;
    this.headers = opts.headers ?? {};
  }
}

/** 400: the body or a parameter cannot be understood; each issue names the field and the reason. */
export function badRequest(issues: FieldIssue[], cause?: unknown): HttpError {
  return new HttpError(400, describeIssues('invalid request', issues), { issues, cause });
}

/** 422: well-formed, but not an acceptable Rollout (or a command the workload cannot take). */
export function unprocessable(issues: FieldIssue[], cause?: unknown, what: 'invalid rollout' | 'command refused' = 'invalid rollout'): HttpError {
  return new HttpError(422, describeIssues(what, issues), { issues, cause });
}

function describeIssues(what: string, issues: FieldIssue[]): string {
  return `${what}: ${issues.map((i) => `${i.path}: ${i.reason}`).join('; ')}`;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/**
 * Errors → responses. A ValidationError reaching here came from the core checking user input the
 * API passed through (e.g. a key part with "#"), so it is a 400 naming the field. Anything not
 * named is a 500 whose details stay in the logs.
 */
export function errorResponse(err: unknown): { response: ApiResponse; unexpected: boolean } {
  const body = (message: string, issues?: FieldIssue[]): ErrorBody => ({ error: issues ? { message, issues } : { message } });
  if (err instanceof HttpError) return { response: json(err.status, body(err.message, err.issues), err.headers), unexpected: false };
  if (err instanceof ValidationError) return { response: json(400, body(err.message, err.issues)), unexpected: false };
  if (err instanceof NotFoundError) return { response: json(404, body(err.message)), unexpected: false };
  if (err instanceof CommandRejectedError || err instanceof ConflictError) return { response: json(409, body(err.message)), unexpected: false };
  if (err instanceof ForbiddenError) return { response: json(403, body(err.message)), unexpected: false };
  // DynamoDB or the apiserver still failing after the clients' retries: nothing was decided, so
  // the same request (with the same command id) may simply be sent again.
  if (err instanceof TransientError) {
    const retryAfter = String(Math.max(1, err.retryAfterSeconds ?? 1));
    return { response: json(503, body(`temporarily unavailable; repeating the request (with the same command id) is safe (${err.message})`), { 'retry-after': retryAfter }), unexpected: false };
  }
  return { response: json(500, body('internal error; the request may not have been applied, retrying it is safe')), unexpected: true };
}
