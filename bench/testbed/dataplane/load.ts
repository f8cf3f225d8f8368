// Real HTTP requests through the proxy, counted by the pod and revision that answered
// (podResponders.ts). Keep-alive connections and a few requests in flight at once, as a client
// fleet behind a load balancer would send them.
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
