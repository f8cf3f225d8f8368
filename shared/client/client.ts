// The one client of the rollouts HTTP API, used by every verb: local mode (plain HTTP on loopback)
// or a deployed stack (Function URL, SigV4-signed). Answers are typed with the API's own response
// shapes; failures become ApiError (the API answered 4xx/5xx) or ApiUnreachableError (no answer).
import type { CommandVerb } from '../api/commandBodies.ts';
import type { FleetApplyResponse, FleetCommandResponse, FleetGetResponse, FleetHistoryResponse, FleetSummary } from '../api/fleetRoutes.ts';
import type { ApplyResponse, ClusterDeregisterResponse, ClusterListResponse, ClusterResponse, CommandResponse, GetResponse, HistoryResponse, ListResponse, StatusResponse } from '../api/types.ts';
import type { WorkloadResponse } from '../api/workloadRoutes.ts';
import { RolloutsError, type FieldIssue } from '../errors.ts';
import type { RolloutKey } from '../rollout/types.ts';
import { isRecord } from '../json.ts';

export interface ApiTarget {
  /** local: `<data dir>/endpoint`, unsigned; deployed: --endpoint / ROLLOUTS_ENDPOINT, SigV4. */
  mode: 'local' | 'deployed';
  endpoint: string;
}

export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Adds authentication headers (SigV4 for a deployed API). */
export type RequestSigner = (req: OutgoingRequest) => Promise<Record<string, string>>;

/** The API answered with an error status; `issues` name the fields of a 400/422. */
export class ApiError extends RolloutsError {
  readonly status: number;
  readonly issues: FieldIssue[];
  constructor(status: number, message: string, issues: FieldIssue[] = [], options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.issues = issues;
  }
}

/** No HTTP answer at all: connection refused, DNS, TLS, timeout. */
export class ApiUnreachableError extends RolloutsError {}

export interface ApiClientOptions {
  fetch?: typeof fetch;
  signer?: RequestSigner;
  /** Per request; the API itself answers within 15 s (Lambda timeout). Default 30 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export class ApiClient {
  constructor(
    readonly target: ApiTarget,
    private readonly opts: ApiClientOptions = {},
  ) {}

  apply(key: RolloutKey, document: unknown): Promise<ApplyResponse> {
    return this.call('PUT', rolloutPath(key), { body: JSON.stringify(document) });
  }

  get(key: RolloutKey): Promise<GetResponse> {
    return this.call('GET', rolloutPath(key));
  }

  status(key: RolloutKey): Promise<StatusResponse> {
    return this.call('GET', `${rolloutPath(key)}/status`);
  }

  history(key: RolloutKey): Promise<HistoryResponse> {
    return this.call('GET', `${rolloutPath(key)}/history`);
  }

  workload(key: RolloutKey): Promise<WorkloadResponse> {
    return this.call('GET', `${rolloutPath(key)}/workload`);
  }

  list(filter: { cluster?: string; namespace?: string }): Promise<ListResponse> {
    const query = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as Record<string, string>;
    return this.call('GET', '/v1/rollouts', { query });
  }

  command(key: RolloutKey, verb: CommandVerb, body: Record<string, unknown> = {}): Promise<CommandResponse> {
    return this.call('POST', `${rolloutPath(key)}/${verb}`, { body: JSON.stringify(body) });
  }

  delete(key: RolloutKey, body: Record<string, unknown> = {}): Promise<CommandResponse> {
    return this.call('DELETE', rolloutPath(key), { body: JSON.stringify(body) });
  }

  clusters(): Promise<ClusterListResponse> {
    return this.call('GET', '/v1/clusters');
  }

  cluster(name: string): Promise<ClusterResponse> {
    return this.call('GET', `/v1/clusters/${encodeURIComponent(name)}`);
  }

  deregisterCluster(name: string): Promise<ClusterDeregisterResponse> {
    return this.call('DELETE', `/v1/clusters/${encodeURIComponent(name)}`);
  }

  fleetApply(name: string, document: unknown): Promise<FleetApplyResponse> {
    return this.call('PUT', fleetPath(name), { body: JSON.stringify(document) });
  }

  fleetGet(name: string): Promise<FleetGetResponse> {
    return this.call('GET', fleetPath(name));
  }

  fleetList(): Promise<{ fleets: FleetSummary[] }> {
    return this.call('GET', '/v1/fleets');
  }

  fleetHistory(name: string): Promise<FleetHistoryResponse> {
    return this.call('GET', `${fleetPath(name)}/history`);
  }

  fleetCommand(name: string, verb: string, body: Record<string, unknown> = {}): Promise<FleetCommandResponse> {
    return this.call('POST', `${fleetPath(name)}/${encodeURIComponent(verb)}`, { body: JSON.stringify(body) });
  }

  fleetDelete(name: string): Promise<{ fleet: string; deleted: boolean; members: string[] }> {
    return this.call('DELETE', fleetPath(name));
  }

  private async call<T>(method: string, path: string, opts: { body?: string; query?: Record<string, string> } = {}): Promise<T> {
    const url = new URL(path.replace(/^\//, ''), this.target.endpoint.endsWith('/') ? this.target.endpoint : `${this.target.endpoint}/`);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json', ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) };
    const signed = this.opts.signer ? await this.opts.signer({ method, url, headers, body: opts.body }) : headers;
    let res: Response;
    try {
      res = await (this.opts.fetch ?? fetch)(url, {
        method,
        headers: signed,
        ...(opts.body !== undefined ? { body: opts.body } : {}),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (err) {
      throw new ApiUnreachableError(`cannot reach the rollouts API at ${this.target.endpoint}: ${networkReason(err)}`, { cause: err });
    }
    const text = await res.text();
    const body = parseJson(text);
    if (res.ok) {
      if (body === undefined) throw new ApiError(res.status, `the API at ${this.target.endpoint} answered ${res.status} with something that is not JSON`);
      return body as T;
    }
    throw errorOf(res.status, body, text);
  }
}

export function fleetPath(name: string): string {
  return `/v1/fleets/${encodeURIComponent(name)}`;
}

export function rolloutPath(key: RolloutKey): string {
  return `/v1/rollouts/${encodeURIComponent(key.cluster)}/${encodeURIComponent(key.namespace)}/${encodeURIComponent(key.name)}`;
}

function errorOf(status: number, body: unknown, text: string): ApiError {
  if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') {
    const issues = Array.isArray(body.error.issues) ? (body.error.issues as FieldIssue[]) : [];
    return new ApiError(status, body.error.message, issues);
  }
  // AWS in front of the function (IAM auth of the Function URL) answers {"Message": "..."}.
  if (isRecord(body) && typeof body.Message === 'string') {
    const hint = status === 403 ? ' (check the AWS credentials, the region, and lambda:InvokeFunctionUrl on this function)' : '';
    return new ApiError(status, `${status} from AWS: ${body.Message}${hint}`);
  }
  return new ApiError(status, `the API answered ${status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''}`);
}

function networkReason(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'no answer in time';
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code) return cause.code === 'ECONNREFUSED' ? 'connection refused' : cause.code;
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

