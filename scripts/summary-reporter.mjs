import { writeFileSync } from 'node:fs';
import path from 'node:path';

// Node test-runner reporter that ends the run with the line CI looks for: "N passed, N failed".
// Skipped and todo tests are counted separately so a skipped suite can never pass as green.
export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let todo = 0;
  // Wall time per test file, from the runner taking it up to its end (the file-level test, named
  // after the file): what to look at when `npm test` outgrows its budget.
  const spans = new Map();
  for await (const event of source) {
    const { file, name } = event.data ?? {};
    if (file && name && path.resolve(name) === path.resolve(file)) {
      if (event.type === 'test:dequeue') spans.set(file, { first: Date.now(), last: Date.now() });
      if (event.type === 'test:complete' && spans.has(file)) spans.get(file).last = Date.now();
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // Only count leaf tests (suites report their own pass/fail too).
    if (event.data.details?.type === 'suite') continue;
    if (event.data.skip) skipped += 1;
    else if (event.data.todo) todo += 1;
    else if (event.type === 'test:pass') passed += 1;
    else failed += 1;
  }
  const seconds = [...spans].map(([file, s]) => [path.relative(process.cwd(), file), (s.last - s.first) / 1000]);
  // Under scripts/run-tests.mjs (one process per integration file) the runner lists the slowest of
  // the whole run, and keeps the spans as the table it orders the next runs by (scripts/test-durations.json).
  const slowest = seconds.sort((a, b) => b[1] - a[1]).slice(0, 15);
  if (slowest.length > 1 && !process.env.ROLLOUTS_TEST_SUMMARY_FILE) yield `\nslowest files (s):\n${slowest.map(([f, sec]) => `  ${sec.toFixed(0).padStart(5)}  ${f}`).join('\n')}\n`;
  const extra = [skipped ? `${skipped} skipped` : '', todo ? `${todo} todo` : ''].filter(Boolean).join(', ');
  // The runner (scripts/run-tests.mjs) may add failures found after the tests (leftover processes)
  // and then prints the final line itself; run directly, this is the final line.
  if (process.env.ROLLOUTS_TEST_SUMMARY_FILE) {
    writeFileSync(process.env.ROLLOUTS_TEST_SUMMARY_FILE, JSON.stringify({ passed, failed, skipped, todo, spans: Object.fromEntries(seconds) }));
  }
  yield `\n${passed} passed, ${failed} failed${extra ? ` (${extra})` : ''}\n`;
}
