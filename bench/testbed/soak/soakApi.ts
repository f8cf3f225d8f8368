// The soak's user: calls local mode's HTTP API as the CLI would, and keeps calling through the
// reconciler's kills and restarts: a request that got no answer (connection refused while local
// mode restarts, a reset) or a 5xx is sent again with the same body and command id, so a command
// is accepted at most once however often it is sent. Which command ids were accepted is recorded
// for the "no command lost or applied twice" check.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

export class SoakApi {
  /** Command ids the API accepted (202, or 200 duplicate of an earlier accepted attempt), per "namespace/name". */
  readonly accepted = new Map<string, string[]>();
  /** Every command sent, with its answer, per "namespace/name": the user's side of the evidence. */
  readonly sent = new Map<string, string[]>();
  requests = 0;
  retries = 0;
  private seq = 0;

  constructor(private readonly home: string, private readonly cluster: string) {}

  private endpoint(): string | null {
    try {
      return readFileSync(path.join(this.home, 'endpoint'), 'utf8').trim();
    } catch {
      return null;
    }
  }

  /** One logical request, retried until it gets a non-5xx answer or `timeoutMs` passes. */
  async call(method: string, urlPath: string, body?: unknown, timeoutMs = 120_000): Promise<ApiAnswer> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no attempt';
    for (let attempt = 0; Date.now() < deadline; attempt += 1) {
      if (attempt > 0) {
        this.retries += 1;
        await new Promise((r) => setTimeout(r, Math.min(2000, 200 * attempt)));
      }
      const base = this.endpoint();
      if (base === null) {
        last = 'local mode is not up';
        continue;
      }
      this.requests += 1;
      try {
        const res = await fetch(`${base}${urlPath}`, {
          method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        if (res.status >= 500) {
          last = `${res.status} ${text.slice(0, 200)}`;
          continue;
        }
        return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      } catch (err) {
        last = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
    }
    throw new Error(`${method} ${urlPath}: no answer within ${timeoutMs / 1000}s (last: ${last})`);
  }

  rolloutPath(namespace: string, name: string, suffix = ''): string {
    return `/v1/rollouts/${this.cluster}/${namespace}/${name}${suffix}`;
  }

  /** A command verb with a fresh command id; returns the answer's status (202/200 accepted, 409 refused…). */
  async command(namespace: string, name: string, verb: string, body: Record<string, unknown> = {}): Promise<number> {
    this.seq += 1;
    const commandId = `soak-${namespace}-${verb}-${this.seq}`;
    const answer = verb === 'delete'
      ? await this.call('DELETE', this.rolloutPath(namespace, name), { commandId })
      : await this.call('POST', this.rolloutPath(namespace, name, `/${verb}`), { ...body, commandId });
    const key = `${namespace}/${name}`;
    if (answer.status === 202 || answer.status === 200) this.accepted.set(key, [...(this.accepted.get(key) ?? []), commandId]);
    this.sent.set(key, [...(this.sent.get(key) ?? []), `${new Date().toISOString()} user ${verb} ${JSON.stringify(body)} [${commandId}] → ${answer.status}`]);
    return answer.status;
  }
}
