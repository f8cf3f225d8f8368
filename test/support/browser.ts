// Headless Chromium for browser tests: Debian's `chromium` package (installed by .ci/run), driven by
// playwright-core, which downloads no browser. playwright-core is pinned to the release that bundles
// the same Chromium major as Debian's (1.64.1 ↔ 156); launchChromium reports a mismatch when Debian
// moves on. Playwright kills the browser's process group on close and when this process exits.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** The binary itself, not /usr/bin/chromium (a shell wrapper that only adds flags from /etc/chromium.d). */
export const CHROMIUM_PATH = process.env.ROLLOUTS_CHROMIUM ?? '/usr/lib/chromium/chromium';
export const CHROMIUM_INSTALL = 'apt-get update && apt-get install -y chromium';

export interface ChromiumInfo {
  browser: Browser;
  /** e.g. "156.0.8078.114" */
  version: string;
  /** The Chromium version the installed playwright-core was released with. */
  playwrightChromium: string;
  /** Set when the majors differ: Playwright may then misbehave, and what to bump. */
  mismatch?: string;
}

export async function launchChromium(): Promise<ChromiumInfo> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run ${CHROMIUM_INSTALL} (or set ROLLOUTS_CHROMIUM)`);
  // As root (CI) Chromium needs --no-sandbox, which Playwright passes by default (chromiumSandbox: false).
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
  const version = browser.version();
  const playwrightChromium = bundledChromiumVersion();
  const major = (v: string) => v.split('.')[0];
  const mismatch = major(version) === major(playwrightChromium)
    ? undefined
    : `Chromium ${version} with playwright-core built for ${playwrightChromium}: pin playwright-core to the release whose browsers.json names Chromium ${major(version)}`;
  return { browser, version, playwrightChromium, mismatch };
}

function bundledChromiumVersion(): string {
  // Not an export of the package, so read beside its package.json.
  const packageJson = createRequire(import.meta.url).resolve('playwright-core/package.json');
  const browsers = JSON.parse(fs.readFileSync(path.join(path.dirname(packageJson), 'browsers.json'), 'utf8')) as { browsers: { name: string; browserVersion: string }[] };
  return browsers.browsers.find((b) => b.name === 'chromium')?.browserVersion ?? 'unknown';
}
