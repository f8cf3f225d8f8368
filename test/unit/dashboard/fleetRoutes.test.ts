// The dashboard server's fleet routes (shared/dashboard/server.ts): reads go to the API's fleet
// routes through the CLI's client, and a command is passed on only when it is one of the fleet
// page's verbs and carries the page's header. The client here records what it is asked; the pages
// against a real API are test/integration/dashboard.fleet.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboard, type Dashboard } from '../../../shared/dashboard/server.ts';
import type { ApiClient } from '../../../shared/client/client.ts';
import { DASHBOARD_HEADER, type FleetDetail } from '../../../shared/dashboard/types.ts';

const AT = '2026-12-02T12:00:00.000Z';
const calls: string[] = [];
const client = {
  target: { mode: 'local', endpoint: 'http://127.0.0.1:1' },
  fleetList: async () => { calls.push('list'); return { fleets: [] }; },
  fleetGet: async (name: string) => { calls.push(`get ${name}`); return { fleet: name }; },
  fleetHistory: async (name: string) => { calls.push(`history ${name}`); return { fleet: name, history: [] }; },
  fleetCommand: async (name: string, verb: string, body: Record<string, unknown>) => { calls.push(`${verb} ${name} ${JSON.stringify(body)}`); return { fleet: name, commandId: 'c1', duplicate: false }; },
} as unknown as ApiClient;

let dashboard: Dashboard;
const post = (path: string, body: unknown, headers: Record<string, string> = { [DASHBOARD_HEADER]: '1' }) =>
  fetch(new URL(path, dashboard.url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('the dashboard server\'s fleet routes', () => {
  before(async () => {
    dashboard = await startDashboard({ client, assets: { html: '', js: '', css: '' }, port: 0, pollMs: 1000, clock: { now: () => new Date(AT) } });
  });
  after(() => dashboard.stop());

  test('GET /api/fleets/:name answers the fleet and its history together', async () => {
    calls.length = 0;
    const res = await fetch(new URL('/api/fleets/web', dashboard.url));
    assert.equal(res.status, 200);
    const detail = await res.json() as FleetDetail;
    assert.deepEqual(detail, { fleet: { fleet: 'web' }, history: [], fetchedAt: AT });
    assert.deepEqual(calls.sort(), ['get web', 'history web']);
  });

  test('a fleet verb of the page is passed on with its body', async () => {
    calls.length = 0;
    const res = await post('/api/fleets/web/release', { images: { app: 'nginx:1.28' } });
    assert.equal(res.status, 200);
    assert.deepEqual(calls, ['release web {"images":{"app":"nginx:1.28"}}']);
  });

  test('a verb the page does not send (skip) is refused, and so is a command without the page\'s header', async () => {
    calls.length = 0;
    const skip = await post('/api/fleets/web/skip', { cluster: 'eu-1' });
    assert.equal(skip.status, 404);
    assert.match(((await skip.json()) as { error: { message: string } }).error.message, /release, approve, pause, resume, abort to a fleet, not skip/);
    const headerless = await post('/api/fleets/web/abort', {}, {});
    assert.equal(headerless.status, 403);
    assert.deepEqual(calls, []);
  });
});
