// The dashboard in a real browser (Debian's Chromium driven by playwright-core) against local mode on
// the sandbox, as a user works with it: `rollouts serve --sandbox` and `rollouts dashboard` as child
// processes, the release started from the CLI, Approve and Abort clicked on the page, then local mode
// stopped and started again (on another port). The page is loaded once: every change after that
// must arrive by itself (its polling), never by a reload. Every status it shows uses glyphs common
// fonts draw, and the list and the rollout page say the same status for the same state. Last, a
// routed Rollout (trafficRoutings through an ingress-nginx Ingress) shows each step's traffic beside
// its pods, the weight its router carries as read from the cluster, and what its step waits for.
// A screenshot of each stage goes to a temporary directory (printed as a diagnostic); with
// ROLLOUTS_UPDATE_SCREENSHOT=1 the "awaiting approval" one also replaces docs/dashboard.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { AppsV1Api, CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../bench/testbed/kube.ts';
import { launchChromium, type ChromiumInfo } from '../support/browser.ts';
import { REPO_ROOT } from '../../bench/testbed/cliProcess.ts';
import { DashboardProcess } from '../support/dashboardProcess.ts';
import { assertReadableStatuses as assertPageReadable, loadedOnce, markLoaded, screenshot as screenshotOf } from '../support/dashboardPage.ts';
import { ServeProcess, cleanEnv, rolloutsAt } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const home = mkdtempSync(path.join(tmpdir(), 'rollouts-dashboard-'));
const shots = mkdtempSync(path.join(tmpdir(), 'rollouts-dashboard-shots-'));
const env = cleanEnv({ ROLLOUTS_HOME: home });
const rollouts = (...args: string[]) => rolloutsAt(home, env, ...args);

let serve: ServeProcess;
let dashboard: DashboardProcess;
let chromium: ChromiumInfo;
let page: Page;

const screenshot = (name: string) => screenshotOf(page, shots, name);
const assertReadableStatuses = () => assertPageReadable(page);

/** Pods of the revision tree on the page, per image. */
async function podsOnPage(): Promise<Record<string, number>> {
  const images = await page.locator('[data-testid="pod"]').evaluateAll((pods) => pods.map((p) => p.getAttribute('data-image') ?? ''));
  const out: Record<string, number> = {};
  for (const image of images) out[image] = (out[image] ?? 0) + 1;
  return out;
}

describe('the dashboard in Chromium, against local mode', () => {
  before(async () => {
    serve = await ServeProcess.start(home, ['--sandbox', '--fresh', '--pod-ready-ms', '300'], env);
    const applied = await rollouts('apply', '-f', 'examples/rollout.yaml');
    assert.equal(applied.code, 0, applied.err);
    await waitFor(async () => JSON.parse((await rollouts('get', 'web', '-o', 'json')).out).state.stableRevision, { message: 'web to be adopted', timeoutMs: 60_000, intervalMs: 300 });
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

  test('lists the rollouts, with phase, step and reason', async (t) => {
    await page.goto(dashboard.url);
    const row = page.locator('[data-testid="rollout-row"][data-rollout="local/default/web"]');
    await row.waitFor();
    assert.match(await row.innerText(), /Deployment\/web\s+✔ Healthy\s+-\s+stable at revision \S+/);
    await assertReadableStatuses();
    // Set once: it would be gone after a reload.
    await page.evaluate(() => Object.assign(globalThis, { loadedOnce: true }));
    t.diagnostic(`screenshot: ${await screenshot('1-list')}`);
  });

  test('a release started from the CLI shows step 1 waiting for approval, with the reason', async (t) => {
    await page.locator('a', { hasText: 'web' }).first().click();
    const released = await rollouts('release', 'web', '--image', 'app=nginx:1.28');
    assert.equal(released.code, 0, released.err);
    await page.locator('[data-testid="step-1"][data-status="current"]').waitFor({ timeout: 60_000 });
    const reason = page.locator('.status [data-testid="reason"]');
    await waitFor(async () => /awaiting approval/.test(await reason.innerText()), { message: 'the page to show the approval', timeoutMs: 60_000 });
    const stored = JSON.parse((await rollouts('get', 'web', '-o', 'json')).out).state;
    assert.equal(await reason.innerText(), stored.message, 'the page shows the stored reason');
    assert.equal(stored.message, `step 1/3: awaiting approval since ${stored.release.stepReadyAt.replace(/\.\d{3}Z$/, 'Z')} (rollouts approve web)`);
    assert.equal(await page.locator('[data-testid="cause-kind"]').innerText(), 'Approval');
    assert.equal((await podsOnPage())['nginx:1.28'], 1, 'one canary pod in the tree');
    assert.equal(await page.locator('.status [data-testid="status"]').innerText(), '‖ Paused');
    assert.equal(await page.locator('[data-testid="step-now"]').innerText(), 'awaiting approval (rollouts approve web)');
    await assertReadableStatuses();
    const file = await screenshot('2-awaiting-approval');
    if (process.env.ROLLOUTS_UPDATE_SCREENSHOT === '1') copyFileSync(file, path.join(REPO_ROOT, 'docs/dashboard.png'));
    t.diagnostic(`screenshot: ${file}`);
  });

  test('the list says the same status as the rollout page while step 1 awaits approval', async () => {
    const detail = await page.locator('.status [data-testid="status"]').innerText();
    await page.locator('a.brand').click();
    const row = page.locator('[data-testid="rollout-row"][data-rollout="local/default/web"]');
    await row.waitFor();
    assert.equal(await row.locator('[data-testid="status"]').innerText(), detail);
    assert.equal(detail, '‖ Paused');
    await assertReadableStatuses();
    await row.locator('a', { hasText: 'web' }).click();
    await page.locator('[data-testid="step-1"][data-status="current"]').waitFor();
    assert.equal(await page.evaluate(() => (globalThis as { loadedOnce?: boolean }).loadedOnce), true, 'the page was not reloaded');
  });

  test('Approve asks for confirmation, then step 2 begins without a reload', async (t) => {
    await page.locator('button[data-verb="approve"]').click();
    const dialog = page.locator('[data-testid="confirm"]');
    assert.match(await dialog.innerText(), /Approve step 1 of web\?/);
    t.diagnostic(`screenshot: ${await screenshot('3-confirm-approve')}`);
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.locator('[data-testid="step-2"][data-status="current"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="step-1"][data-status="done"]').waitFor();
    await waitFor(async () => (await podsOnPage())['nginx:1.28'] === 5, { message: 'half the pods on the new image in the tree', timeoutMs: 60_000 });
    assert.equal(await page.evaluate(() => (globalThis as { loadedOnce?: boolean }).loadedOnce), true, 'the page was not reloaded');
    t.diagnostic(`screenshot: ${await screenshot('4-step-2')}`);
  });

  test('Abort asks for confirmation, then every pod returns to the stable revision', async (t) => {
    await page.locator('button[data-verb="abort"]').click();
    assert.match(await page.locator('[data-testid="confirm"]').innerText(), /Every pod returns to the stable revision/);
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.locator('[data-testid="status"]', { hasText: 'Aborted' }).waitFor({ timeout: 60_000 });
    await waitFor(async () => JSON.stringify(await podsOnPage()) === JSON.stringify({ 'nginx:1.27': 10 }), { message: 'every pod back on nginx:1.27 in the tree', timeoutMs: 60_000 });
    assert.equal(await page.evaluate(() => (globalThis as { loadedOnce?: boolean }).loadedOnce), true, 'the page was not reloaded');
    const history = await page.locator('[data-testid="history"]').innerText();
    for (const event of ['Step Approved', 'Rollback Started', 'Release Aborted']) assert.match(history, new RegExp(event));
    // "Release Requested" belongs to the release it asked for, as "Release Started" does.
    const rows = await page.locator('[data-testid="history"] tbody tr').allInnerTexts();
    const releaseOf = (event: string) => rows.map((r) => r.split('\t')).find((cells) => cells[2] === event)?.[1];
    assert.ok(releaseOf('Release Started'), rows.join('\n'));
    assert.equal(releaseOf('Release Requested'), releaseOf('Release Started'));
    await assertReadableStatuses();
    t.diagnostic(`screenshot: ${await screenshot('5-aborted')}`);
  });

  test('the page recovers by itself when local mode is stopped and started again on another port', async (t) => {
    const before = await page.locator('[data-testid="target"]').innerText();
    const interrupted = await serve.interrupt();
    assert.equal(interrupted.code, 0, serve.output());
    await page.locator('.problem[role="alert"]').first().waitFor({ timeout: 30_000 });
    assert.match(await page.locator('.problem[role="alert"]').first().innerText(), /local mode is not running|does not answer|fetch failed|ECONNREFUSED/);
    t.diagnostic(`screenshot: ${await screenshot('6-local-mode-down')}`);
    // Another port for certain: a port taken from the OS (port 0) may come back the same one.
    serve = await ServeProcess.start(home, ['--sandbox', '--pod-ready-ms', '300', '--port', String(await freePortOtherThan(before))], env);
    const endpoint = readFileSync(path.join(home, 'endpoint'), 'utf8').trim();
    await waitFor(async () => (await page.locator('[data-testid="target"]').innerText()).includes(endpoint), { message: `the header to name ${endpoint}`, timeoutMs: 30_000 });
    assert.notEqual(await page.locator('[data-testid="target"]').innerText(), before, 'local mode listens on another port');
    await page.locator('[data-testid="status"]', { hasText: 'Aborted' }).waitFor({ timeout: 30_000 });
    await waitFor(async () => (await page.locator('.problem[role="alert"]').count()) === 0, { message: 'the problem to go away', timeoutMs: 30_000 });
    assert.equal(await page.evaluate(() => (globalThis as { loadedOnce?: boolean }).loadedOnce), true, 'the page was not reloaded');
    t.diagnostic(`screenshot: ${await screenshot('7-local-mode-back')}`);
  });

  test('a routed rollout shows each step\'s traffic, the weight its router carries, and what its step waits for', async (t) => {
    // The user's Deployment, Service and Ingress, created as kubectl would (the sandbox's admin).
    const admin = loadKubeConfig(path.join(home, 'kubeconfig'));
    const labels = { app: 'shop' };
    await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: 'default', body: {
      metadata: { name: 'shop', labels },
      spec: { replicas: 4, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
    } });
    await admin.makeApiClient(CoreV1Api).createNamespacedService({ namespace: 'default', body: { metadata: { name: 'shop' }, spec: { selector: labels, ports: [{ port: 80 }] } } });
    const networking = admin.makeApiClient(NetworkingV1Api);
    await networking.createNamespacedIngress({ namespace: 'default', body: {
      metadata: { name: 'shop' },
      spec: { ingressClassName: 'nginx', rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { number: 80 } } } }] } }] },
    } });
    // ingress-nginx has no "live" signal: each change waits the grace period (20 s: many polls of the page).
    const file = path.join(home, 'shop-rollout.json');
    writeFileSync(file, JSON.stringify({
      apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'shop', namespace: 'default' },
      spec: {
        workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
        strategy: { canary: {
          steps: [{ replicas: 1, traffic: '20%', pause: {} }, { replicas: '50%', traffic: '50%', pause: {} }, { replicas: '100%' }],
          trafficRoutings: [{ service: 'shop', gracePeriodSeconds: 20, ingress: { name: 'shop' } }],
        } },
      },
    }));
    const applied = await rollouts('apply', '-f', file);
    assert.equal(applied.code, 0, applied.err);
    await waitFor(async () => JSON.parse((await rollouts('get', 'shop', '-o', 'json')).out).state.stableRevision, { message: 'shop to be adopted', timeoutMs: 60_000, intervalMs: 300 });

    await page.goto(`${dashboard.url}#/rollouts/local/default/shop`);
    await markLoaded(page);
    const now = page.locator('[data-testid="traffic-now"]');
    await waitFor(async () => (await now.getAttribute('data-weight')) === '0', { message: 'the page to show the original routing', timeoutMs: 30_000 });
    assert.equal(await now.innerText(), 'the original routing (nothing to the canary)');
    assert.equal(await page.locator('[data-testid="traffic-router"]').innerText(), 'ingress/shop');
    assert.deepEqual(await page.locator('[data-testid="step-traffic"]').allInnerTexts(), ['traffic 20%', 'traffic 50%', 'traffic original']);
    assert.match(await page.locator('[data-testid="step-1"]').innerText(), /Step 1: 1 of 4 pods, traffic 20%/);

    const released = await rollouts('release', 'shop', '--image', 'app=nginx:1.28');
    assert.equal(released.code, 0, released.err);
    // Step 1's pod is Available: the canary Service, then the 20 %, each given the grace period.
    const waiting = page.locator('[data-testid="traffic-waiting"]');
    const grace = /^ingress\/shop: waiting 20s \(gracePeriodSeconds\) for the change to reach the proxy \(grace period 20s: \d+s left\)$/;
    // One render read at once: the panel's waiting line and the status's cause say the same wait.
    const shown = () => page.locator('body').evaluate((body) => ({
      waiting: body.querySelector('[data-testid="traffic-waiting"]')?.textContent ?? null,
      cause: body.querySelector('[data-testid="cause-kind"]')?.textContent ?? null,
    }));
    const seen = await waitFor(async () => { const v = await shown(); return v.waiting !== null && grace.test(v.waiting) ? v : null; }, { message: 'the page to show step 1 waiting out the grace period', timeoutMs: 90_000, intervalMs: 200 });
    assert.equal(seen.cause, 'Traffic');
    t.diagnostic(`screenshot: ${await screenshot('8-traffic-waiting')}`);

    const reason = page.locator('.status [data-testid="reason"]');
    await waitFor(async () => /awaiting approval/.test(await reason.innerText()), { message: 'step 1 to await approval once its traffic is live', timeoutMs: 90_000 });
    await waitFor(async () => (await now.getAttribute('data-weight')) === '20', { message: 'the page to show the 20 % the router carries', timeoutMs: 30_000 });
    assert.equal(await now.innerText(), '20% to the canary (step 1)');
    assert.equal(await waiting.count(), 0, 'nothing waits on the router any more');
    // What the page says is what the cluster's canary Ingress says (ingress-nginx's annotation).
    const canary = await networking.readNamespacedIngress({ namespace: 'default', name: 'shop-canary' });
    assert.equal(canary.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'], '20');
    assert.equal(await loadedOnce(page), true, 'the page was not reloaded');
    await assertReadableStatuses();
    t.diagnostic(`screenshot: ${await screenshot('9-traffic-20')}`);
  });
});

/** A free port on 127.0.0.1 that is not the one `shown` (e.g. "local mode · http://127.0.0.1:45213") names. */
async function freePortOtherThan(shown: string): Promise<number> {
  const taken = Number(/:(\d+)\s*$/.exec(shown)?.[1] ?? 0);
  for (;;) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (port !== taken) return port;
  }
}
