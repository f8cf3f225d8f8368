// A small route table: "/v1/rollouts/:cluster/:namespace/:name" patterns matched segment by
// segment on the raw (percent-encoded) path, so an encoded "/" inside a name cannot shift segments.
// A path that matches with another method is a 405 naming the allowed methods, otherwise a 404.
import type { ApiVerb } from './authorization.ts';
import { HttpError, badRequest } from './httpError.ts';
import type { ApiDeps, ApiRequest, ApiResponse } from './types.ts';

export interface RouteContext {
  req: ApiRequest;
  params: Record<string, string>;
  deps: ApiDeps;
}

export interface Route {
  method: string;
  pattern: string;
  /** What the authorization policy calls this request (shared/api/authorization.ts). */
  verb: ApiVerb;
  handle(ctx: RouteContext): Promise<ApiResponse>;
}

export function matchRoute(routes: readonly Route[], method: string, rawPath: string): { route: Route; params: Record<string, string> } {
  const segments = splitPath(rawPath);
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPattern(route.pattern, segments);
    if (!params) continue;
    if (route.method === method.toUpperCase()) return { route, params };
    allowed.push(route.method);
  }
  if (allowed.length > 0) {
    throw new HttpError(405, `${method.toUpperCase()} is not allowed on ${rawPath}; use ${allowed.join(', ')}`, { headers: { allow: allowed.join(', ') } });
  }
  throw new HttpError(404, `no such route: ${method.toUpperCase()} ${rawPath}`);
}

function splitPath(rawPath: string): string[] {
  const trimmed = rawPath.replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | null {
  const parts = splitPath(pattern);
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeSegment(part.slice(1), segment);
    else if (part !== segment) return null;
  }
  return params;
}

function decodeSegment(name: string, segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch (err) {
    throw badRequest([{ path: name, reason: 'is not valid percent-encoding' }], err);
  }
}
