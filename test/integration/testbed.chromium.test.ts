// Debian's Chromium, driven headless by playwright-core, renders a local page, runs its script,
// answers a click and takes a screenshot: what the dashboard's browser test needs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium, type ChromiumInfo } from '../support/browser.ts';

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Rollouts</title></head>
<body>
  <h1 id="phase">loading</h1>
  <button id="approve">Approve</button>
  <script>
    fetch('/status').then((r) => r.json()).then((s) => { document.getElementById('phase').textContent = s.phase; });
    document.getElementById('approve').addEventListener('click', () => { document.getElementById('phase').textContent = 'Progressing'; });
  </script>
</body></html>`;

describe('Chromium on the test bed', () => {
  let chromium: ChromiumInfo;
  let server: http.Server;
  let url: string;

  before(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/status') response.writeHead(200, { 'content-type': 'application/json' }).end('{"phase":"Paused"}');
      else response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    chromium = await launchChromium();
  });

  after(async () => {
    await chromium?.browser.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  test('is the Chromium major playwright-core was built for', (t) => {
    t.diagnostic(`Chromium ${chromium.version}, playwright-core built for ${chromium.playwrightChromium}`);
    assert.equal(chromium.mismatch, undefined);
  });

  test('renders a local page, runs its script and answers a click', async () => {
    const page = await chromium.browser.newPage();
    try {
      await page.goto(url);
      await page.locator('#phase', { hasText: 'Paused' }).waitFor();
      await page.click('#approve');
      assert.equal(await page.textContent('#phase'), 'Progressing');
      assert.equal(await page.title(), 'Rollouts');
    } finally {
      await page.close();
    }
  });

  test('takes a PNG screenshot of the viewport', async () => {
    const page = await chromium.browser.newPage({ viewport: { width: 640, height: 360 } });
    try {
      await page.goto(url);
      const png = await page.screenshot();
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
      // IHDR: width and height, big-endian, right after the signature and chunk header.
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [640, 360]);
    } finally {
      await page.close();
    }
  });
});
