// Real HTTP requests through the proxy, counted by the pod and revision that answered
// (podResponders.ts). Keep-alive connections and a few requests in flight at once, as a client
// fleet behind a load balancer would send them. `probe` sends them without a break and keeps each
// answer with its time, for the traffic bench (bench/trafficApplied.ts) to see when a weight lands.
import http from 'node:http';
import type { PodAnswer } from './podResponders.ts';

export interface LoadResult {
  sent: number;
  /** Answers by revision (the pod-template-hash of the pod that answered). */
  byRevision: Map<string, number>;
  byPod: Map<string, number>;
  /** Responses other than 200 (e.g. a 502 from the proxy), by status code. */
  failures: Map<number, number>;
  /** Requests that got no HTTP response at all (connection refused or reset at the proxy). */
  transportErrors: string[];
}

export interface LoadOptions {
  headers?: Record<string, string>;
  /** Requests in flight at once. Default 8. */
  concurrency?: number;
  path?: string;
}

function once(agent: http.Agent, url: URL, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends `count` GETs to `baseUrl` and counts who answered. */
export async function sendRequests(baseUrl: string, count: number, options: LoadOptions = {}): Promise<LoadResult> {
  const url = new URL(options.path ?? '/', baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency ?? 8 });
  const result: LoadResult = { sent: 0, byRevision: new Map(), byPod: new Map(), failures: new Map(), transportErrors: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      result.sent += 1;
      try {
        const res = await once(agent, url, options.headers ?? {});
        if (res.status !== 200) {
          result.failures.set(res.status, (result.failures.get(res.status) ?? 0) + 1);
          continue;
        }
        const answer = JSON.parse(res.body) as PodAnswer;
        result.byRevision.set(answer.revision, (result.byRevision.get(answer.revision) ?? 0) + 1);
        result.byPod.set(answer.pod, (result.byPod.get(answer.pod) ?? 0) + 1);
      } catch (error) {
        result.transportErrors.push(String(error));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  } finally {
    agent.destroy();
  }
  return result;
}

/** The share of answers (0–100) that came from `revision`. */
export function sharePercent(result: LoadResult, revision: string): number {
  const answered = [...result.byRevision.values()].reduce((a, b) => a + b, 0);
  return answered === 0 ? 0 : (100 * (result.byRevision.get(revision) ?? 0)) / answered;
}

/** One answer of a probe: when it arrived and who sent it. */
export interface ProbeAnswer {
  /** Date.now() when the answer (or the error) arrived. */
  at: number;
  /** The HTTP status; 0 when no HTTP response came (connection refused or reset at the proxy). */
  status: number;
  /** The revision (pod-template-hash) of the pod that answered a 200; null otherwise. */
  revision: string | null;
}

export interface Probe {
  /** Every answer so far, in the order they arrived. */
  readonly answers: readonly ProbeAnswer[];
  stop(): Promise<void>;
}

/**
 * Sends GETs to `baseUrl` until stop(): `concurrency` keep-alive clients (default 2), each waiting
 * `gapMs` (default 5) after an answer before its next request, so the probe is continuous without
 * taking the cores the measured components need.
 */
export function probe(baseUrl: string, options: LoadOptions & { gapMs?: number } = {}): Probe {
  const url = new URL(options.path ?? '/', baseUrl);
  const concurrency = options.concurrency ?? 2;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const answers: ProbeAnswer[] = [];
  let running = true;
  const worker = async (): Promise<void> => {
    while (running) {
      try {
        const res = await once(agent, url, options.headers ?? {});
        answers.push({ at: Date.now(), status: res.status, revision: res.status === 200 ? (JSON.parse(res.body) as PodAnswer).revision : null });
      } catch {
        answers.push({ at: Date.now(), status: 0, revision: null });
      }
      await new Promise((resolve) => setTimeout(resolve, options.gapMs ?? 5));
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(workers);
      agent.destroy();
    },
  };
}
