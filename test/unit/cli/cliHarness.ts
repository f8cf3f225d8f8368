// The CLI's API verbs run in memory against the real API core: `fetch` is routed straight into
// handleApiRequest over the in-memory store and queue (no socket), files come from a map, time is
// a manual clock that each `sleep` advances. What a verb prints and returns is then exactly what a
// user would see against local mode.
import { handleApiRequest } from '../../../shared/api/handleApiRequest.ts';
import type { ApiDeps } from '../../../shared/api/types.ts';
import { run } from '../../../shared/cli/main.ts';
import type { CliRuntime, RuntimeIO } from '../../../shared/cli/runtime.ts';
import type { ReleaseState, RolloutKey } from '../../../shared/rollout/types.ts';
import { api, type Api } from '../api/apiFixtures.ts';

export const HOME = '/home/me/project';
export const ENDPOINT_FILE = `${HOME}/.rollouts/endpoint`;
export const LOCAL_KEY: RolloutKey = { cluster: 'local', namespace: 'default', name: 'web' };

export const ROLLOUT_YAML = `apiVersion: rollouts.serverless-rollouts.io/v1alpha1
kind: Rollout
metadata: {name: web}
spec:
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  strategy:
    canary:
      steps:
        - replicas: 1
          pause: {}
        - replicas: 100%
`;

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export interface Harness {
  api: Api;
  files: Record<string, string>;
  env: Record<string, string | undefined>;
  /** Requests the CLI sent: "METHOD /path". */
  requests: string[];
  /** Called on every sleep (the CLI waiting between polls), after the clock moved on. */
  onSleep: (() => Promise<void>) | null;
  /** When set, fetch fails like an unreachable server. */
  unreachable: boolean;
  /** stdout is a terminal (default false). */
  tty: boolean;
  cli(...argv: string[]): Promise<CliResult>;
  /** Applies rollout.yaml and stores `state` as if a reconcile had written it. */
  seed(state: ReleaseState): Promise<void>;
}

export function harness(overrides: Partial<ApiDeps> = {}): Harness {
  const a = api(overrides);
  const h: Harness = {
    api: a,
    files: { [ENDPOINT_FILE]: 'http://127.0.0.1:4000\n', 'rollout.yaml': ROLLOUT_YAML },
    env: {},
    requests: [],
    onSleep: null,
    unreachable: false,
    tty: false,
    async cli(...argv) {
      const out: string[] = [];
      const err: string[] = [];
      const runtime: Partial<CliRuntime> = {
        env: h.env,
        cwd: HOME,
        fetch: (input, init) => routeToApi(h, String(input), init ?? {}, a.deps),
        now: () => a.clock.now(),
        sleep: async (ms) => {
          a.clock.advance(ms / 1000);
          await h.onSleep?.();
          // Yield to the event loop as a real sleep does (a response body is read in a macrotask).
          await new Promise((resolve) => setImmediate(resolve));
        },
        isTTY: h.tty,
        onInterrupt: () => () => {},
      };
      const io: RuntimeIO = {
        out: (t) => void out.push(t),
        err: (t) => void err.push(t),
        readFile: async (path) => {
          const text = h.files[path];
          if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
          return text;
        },
        runtime,
      };
      const code = await run(argv, io);
      return { code, out: out.join(''), err: err.join('') };
    },
    async seed(state) {
      const applied = await h.cli('apply', '-f', 'rollout.yaml');
      if (applied.code !== 0) throw new Error(`seeding failed: ${applied.err}`);
      const current = await a.store.load(LOCAL_KEY);
      await a.store.saveState(LOCAL_KEY, { state, outbox: { history: [], events: [] } }, current.state.version);
      h.requests.length = 0;
    },
  };
  return h;
}

async function routeToApi(h: Harness, url: string, init: RequestInit, deps: ApiDeps): Promise<Response> {
  if (h.unreachable) throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4000'), { code: 'ECONNREFUSED' }) });
  const u = new URL(url);
  const headers: Record<string, string> = {};
  for (const [k, v] of new Headers(init.headers as ConstructorParameters<typeof Headers>[0])) headers[k.toLowerCase()] = v;
  const method = init.method ?? 'GET';
  h.requests.push(`${method} ${u.pathname}${u.search}`);
  const res = await handleApiRequest(
    { method, path: u.pathname, query: Object.fromEntries(u.searchParams), headers, body: typeof init.body === 'string' ? init.body : undefined, principal: 'me' },
    deps,
  );
  return new Response(res.body, { status: res.status, headers: res.headers });
}
