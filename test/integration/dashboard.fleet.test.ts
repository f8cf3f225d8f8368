// The dashboard's fleet pages in a real browser (Debian's Chromium driven by playwright-core) against
// local mode on the sandbox: `rollouts serve --sandbox` and `rollouts dashboard` as child processes,
// the sandbox's cluster registered with labels, a FleetRollout of the demo Deployment applied with
// `rollouts fleet apply`. Every fleet verb is pressed on the page (Release with an image, Pause,
// Resume, Approve, Abort) and judged twice: by what the page shows after its own polling (never a
// reload), and by the fleet's real state read back with `rollouts fleet get -o json` and the pods.
// Local mode serves one cluster, so the grid has one wave and one cluster column here; the grid of
// two clusters in two waves is the same component (shared/dashboard/ui/fleetParts.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { launchChromium, type ChromiumInfo } from '../support/browser.ts';
import { DashboardProcess } from '../support/dashboardProcess.ts';
import { assertReadableStatuses, loadedOnce, markLoaded, screenshot } from '../support/dashboardPage.ts';
import { ServeProcess, cleanEnv, rolloutsAt } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';
import type { FleetGetResponse } from '../../shared/api/fleetRoutes.ts';

const home = mkdtempSync(path.join(tmpdir(), 'rollouts-dashboard-fleet-'));
const shots = mkdtempSync(path.join(tmpdir(), 'rollouts-dashboard-fleet-shots-'));
const env = cleanEnv({ ROLLOUTS_HOME: home });
const rollouts = (...args: string[]) => rolloutsAt(home, env, ...args);
const FLEET_FILE = path.join(home, 'fleet.json');

let serve: ServeProcess;
let dashboard: DashboardProcess;
let chromium: ChromiumInfo;
let page: Page;

/** The fleet as the API stores it (what `rollouts fleet get web -o json` prints). */
async function fleet(): Promise<FleetGetResponse> {
  const r = await rollouts('fleet', 'get', 'web', '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as FleetGetResponse;
}

/** The demo Deployment's pods, per image, read from the sandbox with local mode's kubeconfig. */
async function podImages(): Promise<Record<string, number>> {
  const kc = new KubeConfig();
  kc.loadFromFile(path.join(home, 'kubeconfig'));
  const pods = (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items;
  const out: Record<string, number> = {};
  for (const p of pods.filter((p) => !p.metadata?.deletionTimestamp)) {
    const image = p.spec?.containers[0]?.image ?? '';
    out[image] = (out[image] ?? 0) + 1;
  }
  return out;
}

const member = () => page.locator('[data-testid="fleet-grid"] [data-testid="member"][data-cluster="local"]');

async function press(verb: string, confirm: boolean): Promise<void> {
  const button = page.locator(`[data-testid="fleet-actions"] button[data-verb="${verb}"]`);
  await waitFor(async () => button.isEnabled(), { message: `the ${verb} button to be enabled`, timeoutMs: 60_000 });
  await button.click();
  if (confirm) await page.locator('[data-testid="confirm-ok"]').click();
  await page.locator('[data-testid="fleet-actions"] [role="status"]', { hasText: `${verb} recorded` }).waitFor({ timeout: 30_000 });
}

describe('the dashboard\'s fleet pages in Chromium, against local mode', () => {
  before(async () => {
    serve = await ServeProcess.start(home, ['--sandbox', '--fresh', '--pod-ready-ms', '300'], env);
    // The sandbox's cluster, registered with labels (as `PUT /v1/clusters/<name>` takes them) so a fleet can select it.
    // ServeProcess.start returns once the file exists, which may be before its line is written.
    const endpoint = await waitFor(() => readFileSync(path.join(home, 'endpoint'), 'utf8').trim() || null, { message: 'local mode\'s endpoint file to name its URL', timeoutMs: 10_000, intervalMs: 50 });
    const server = /server: (\S+)/.exec(readFileSync(path.join(home, 'kubeconfig'), 'utf8'))?.[1];
    const registered = await fetch(new URL('/v1/clusters/local', endpoint), {
      method: 'PUT', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: { server, insecureSkipTlsVerify: true }, labels: { ring: 'canary', env: 'demo' } }),
    });
    assert.equal(registered.status, 201, await registered.text());
    writeFileSync(FLEET_FILE, JSON.stringify({
      apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1', kind: 'FleetRollout', metadata: { name: 'web' },
      spec: {
        workload: { namespace: 'default', kind: 'Deployment', name: 'web' },
        clusterSelector: { matchLabels: { env: 'demo' } },
        // Each member: one canary pod awaiting its own approval, then every pod.
        template: { spec: { strategy: { canary: { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] } } } },
        waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { approval: true } }],
      },
    }));
    const applied = await rollouts('fleet', 'apply', '-f', FLEET_FILE);
    assert.equal(applied.code, 0, applied.err);
    await waitFor(async () => (await fleet()).members.some((m) => m.cluster === 'local' && m.phase === 'Healthy'), { message: 'the member Rollout to adopt the demo Deployment', timeoutMs: 60_000, intervalMs: 300 });
    dashboard = await DashboardProcess.start([], env);
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
  });

  after(async () => {
    await chromium?.browser.close();
    const code = await dashboard?.stop();
    await serve?.interrupt();
    rmSync(home, { recursive: true, force: true });
    assert.equal(code, 0, dashboard?.log());
  });

  test('the fleets list shows the fleet with its workload, phase and the stored reason', async (t) => {
    await page.goto(dashboard.url);
    await markLoaded(page);
    await page.locator('[data-testid="nav-fleets"]').click();
    const row = page.locator('[data-testid="fleet-row"][data-fleet="web"]');
    await row.waitFor();
    const stored = (await fleet()).state;
    assert.match(await row.innerText(), /Deployment default\/web\s+• Idle/);
    assert.equal(await row.locator('[data-testid="reason"]').innerText(), stored.message || '-');
    await assertReadableStatuses(page);
    t.diagnostic(`screenshot: ${await screenshot(page, shots, 'fleet-1-list')}`);
  });

  test('the fleet page lists its member with a link to the member\'s rollout page; only Release and Pause fit an idle fleet', async (t) => {
    await page.locator('[data-testid="fleet-row"] a', { hasText: 'web' }).click();
    await page.locator('[data-testid="member-list"] [data-testid="member"][data-cluster="local"]').waitFor();
    assert.equal(await page.locator('[data-testid="member-link"]').getAttribute('href'), '#/rollouts/local/default/web');
    const enabled = await page.locator('[data-testid="fleet-actions"] button').evaluateAll((bs) => bs.filter((b) => !b.hasAttribute('disabled')).map((b) => b.getAttribute('data-verb')));
    assert.deepEqual(enabled, ['release', 'pause']);
    assert.match(await page.locator('button[data-verb="abort"]').getAttribute('title') ?? '', /no fleet release in progress/);
    t.diagnostic(`screenshot: ${await screenshot(page, shots, 'fleet-2-idle')}`);
  });

  test('Release with an image, confirmed: the grid shows wave "canary" × cluster local releasing at step 1, and the blocker names the member\'s own approval', async (t) => {
    await page.locator('[data-testid="fleet-actions"] button[data-verb="release"]').click();
    await page.locator('[data-testid="release-images"]').fill('app=nginx:1.28');
    await page.locator('[data-testid="confirm-ok"]').click();
    await member().and(page.locator('[data-member-status="Releasing"]')).waitFor({ timeout: 60_000 });
    await waitFor(async () => (await member().locator('[data-testid="member-step"]').innerText()) === 'step 1/2', { message: 'the member at step 1/2', timeoutMs: 60_000 });
    await waitFor(async () => (await page.locator('[data-testid="blocker-member"]').count()) > 0 && /^Approval/.test(await page.locator('[data-testid="blocker-member"]').innerText()), { message: 'the blocker to name the member\'s approval', timeoutMs: 60_000 });
    const stored = await fleet();
    assert.deepEqual(stored.state.release?.images, { app: 'nginx:1.28' }, 'the release the page sent');
    assert.equal(stored.state.release?.requestedBy !== null, true);
    assert.equal(await page.locator('.status [data-testid="reason"]').innerText(), stored.state.message);
    assert.equal(await page.locator('[data-testid="blocker-cluster"]').innerText(), 'local');
    assert.equal(await page.locator('[data-testid="blocker-wave"]').innerText(), 'canary');
    assert.match(await page.locator('[data-testid="release-title"]').innerText(), /^release f1 \(Progressing\): app=nginx:1\.28/);
    assert.deepEqual(await page.locator('[data-testid="grid-cluster"]').allInnerTexts(), ['local']);
    assert.equal(await page.locator('[data-testid="wave"][data-wave="canary"] [data-testid="wave-state"]').innerText(), '◌ Releasing');
    assert.equal((await podImages())['nginx:1.28'], 1, 'one canary pod');
    await assertReadableStatuses(page);
    t.diagnostic(`screenshot: ${await screenshot(page, shots, 'fleet-3-releasing')}`);
  });

  test('Pause pauses the fleet and its releasing member; Resume resumes both', async () => {
    await press('pause', false);
    await waitFor(async () => (await fleet()).state.userPaused, { message: 'the fleet to be paused', timeoutMs: 30_000 });
    await page.locator('.status [data-testid="status"][data-status="Paused"]').waitFor({ timeout: 30_000 });
    await waitFor(async () => (await fleet()).members.find((m) => m.cluster === 'local')?.paused === true, { message: 'the member to be paused by the fleet', timeoutMs: 30_000 });
    await press('resume', false);
    await waitFor(async () => !(await fleet()).state.userPaused, { message: 'the fleet to resume', timeoutMs: 30_000 });
    await waitFor(async () => (await fleet()).members.find((m) => m.cluster === 'local')?.paused === false, { message: 'the member to resume', timeoutMs: 30_000 });
    await page.locator('.status [data-testid="status"][data-status="Progressing"]').waitFor({ timeout: 30_000 });
    assert.equal(await loadedOnce(page), true, 'the page was not reloaded');
  });

  test('the member\'s link opens its rollout page, where its own step is approved; back on the fleet page the wave waits for the fleet\'s approval', async (t) => {
    await member().locator('[data-testid="member-link"]').click();
    await page.locator('[data-testid="step-1"][data-status="current"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="actions"] button[data-verb="approve"]').click();
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.locator('[data-testid="step-2"][data-status="done"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="nav-fleets"]').click();
    await page.locator('[data-testid="fleet-row"] a', { hasText: 'web' }).click();
    await page.locator('[data-testid="wave"][data-wave="canary"][data-wave-state="AfterWave"]').waitFor({ timeout: 60_000 });
    await member().and(page.locator('[data-member-status="Completed"]')).waitFor();
    await page.locator('[data-testid="blocker-kind"]', { hasText: 'Approval' }).waitFor({ timeout: 30_000 });
    const stored = await fleet();
    assert.equal(stored.state.cause?.kind, 'Approval');
    assert.equal(await page.locator('.status [data-testid="reason"]').innerText(), stored.state.message);
    assert.match(await page.locator('[data-testid="wave-after"]').innerText(), /approval/);
    assert.deepEqual(await podImages(), { 'nginx:1.28': 10 });
    assert.equal(await loadedOnce(page), true, 'the page was not reloaded');
    t.diagnostic(`screenshot: ${await screenshot(page, shots, 'fleet-4-awaiting-approval')}`);
  });

  test('Approve, confirmed: the fleet release completes', async (t) => {
    assert.match(await (async () => {
      await page.locator('[data-testid="fleet-actions"] button[data-verb="approve"]').click();
      return page.locator('[data-testid="confirm"]').innerText();
    })(), /Approve wave "canary" of web\?/);
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.locator('.status [data-testid="status"][data-status="Completed"]').waitFor({ timeout: 60_000 });
    const stored = await fleet();
    assert.equal(stored.state.phase, 'Completed');
    assert.equal(stored.state.lastRelease?.waves[0]?.approvedBy !== null, true, 'the approval is recorded with its principal');
    const history = await page.locator('[data-testid="history"]').innerText();
    for (const event of ['Fleet Release Started', 'Fleet Wave Approved', 'Fleet Release Completed']) assert.match(history, new RegExp(event));
    await assertReadableStatuses(page);
    t.diagnostic(`screenshot: ${await screenshot(page, shots, 'fleet-5-completed')}`);
  });

  test('a second release, aborted from the page, confirmed: the member rolls back and every pod returns to nginx:1.28', async (t) => {
    await page.locator('[data-testid="fleet-actions"] button[data-verb="release"]').click();
    await page.locator('[data-testid="release-images"]').fill('app=nginx:1.29');
    await page.locator('[data-testid="confirm-ok"]').click();
    await waitFor(async () => (await podImages())['nginx:1.29'] === 1, { message: 'the canary pod of nginx:1.29', timeoutMs: 60_000 });
    await page.locator('[data-testid="fleet-actions"] button[data-verb="abort"]').click();
    assert.match(await page.locator('[data-testid="confirm"]').innerText(), /Abort fleet release f2 of web\?/);
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.locator('.status [data-testid="status"][data-status="Aborted"]').waitFor({ timeout: 60_000 });
    await waitFor(async () => JSON.stringify(await podImages()) === JSON.stringify({ 'nginx:1.28': 10 }), { message: 'every pod back on nginx:1.28', timeoutMs: 60_000 });
    const stored = await fleet();
    assert.equal(stored.state.phase, 'Aborted');
    assert.notEqual(stored.state.lastRelease?.abortedBy, null);
    assert.equal(await loadedOnce(page), true, 'the page was not reloaded');
    await assertReadableStatuses(page);
    t.diagnostic(`screenshot: ${await screenshot(page, shots, 'fleet-6-aborted')}`);
  });
});
