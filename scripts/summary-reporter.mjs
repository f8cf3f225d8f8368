import { writeFileSync } from 'node:fs';

// Node test-runner reporter that ends the run with the line CI looks for: "N passed, N failed".
// Skipped and todo tests are counted separately so a skipped suite can never pass as green.
export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let todo = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // Only count leaf tests (suites report their own pass/fail too).
    if (event.data.details?.type === 'suite') continue;
    if (event.data.skip) skipped += 1;
    else if (event.data.todo) todo += 1;
    else if (event.type === 'test:pass') passed += 1;
    else failed += 1;
  }
  const extra = [skipped ? `${skipped} skipped` : '', todo ? `${todo} todo` : ''].filter(Boolean).join(', ');
  // The runner (scripts/run-tests.mjs) may add failures found after the tests (leftover processes)
  // and then prints the final line itself; run directly, this is the final line.
  if (process.env.ROLLOUTS_TEST_SUMMARY_FILE) {
    writeFileSync(process.env.ROLLOUTS_TEST_SUMMARY_FILE, JSON.stringify({ passed, failed, skipped, todo }));
  }
  yield `\n${passed} passed, ${failed} failed${extra ? ` (${extra})` : ''}\n`;
}
