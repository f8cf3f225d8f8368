// What the dashboard's browser tests check on any page (test/integration/dashboard.*.test.ts): the
// statuses are readable (glyphs common fonts draw, no Kruise-internal words), screenshots of each
// stage, and that the page was loaded once (every change arrives by its polling, never a reload).
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { COVERED_GLYPHS } from '../../shared/client/symbols.ts';

/**
 * The page's text has none of the glyphs common fonts lack (॥ ⧉ ⟳) nor Kruise's internal step
 * names, and each status cell starts with a covered glyph.
 */
export async function assertReadableStatuses(page: Page): Promise<void> {
  const text = await page.locator('body').innerText();
  for (const bad of ['॥', '⧉', '⟳', 'StepPaused', 'StepReady']) assert.equal(text.includes(bad), false, `the page shows ${bad}`);
  const cells = await page.locator('[data-testid="status"]').allInnerTexts();
  assert.ok(cells.length > 0, 'the page shows a status');
  for (const cell of cells) assert.ok(COVERED_GLYPHS.has([...cell.trim()][0] ?? ''), `status "${cell}" starts with a covered glyph`);
}

/** A full-page screenshot named `name` in `dir`; returns its path (the tests print it as a diagnostic). */
export async function screenshot(page: Page, dir: string, name: string): Promise<string> {
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Marks the loaded page: a reload would lose the mark (loadedOnce tells). */
export async function markLoaded(page: Page): Promise<void> {
  await page.evaluate(() => Object.assign(globalThis, { loadedOnce: true }));
}

export async function loadedOnce(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as { loadedOnce?: boolean }).loadedOnce === true);
}
