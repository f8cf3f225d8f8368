#!/usr/bin/env node
// The one test command (`npm test`): builds the Kubernetes test control plane and the other test-bed
// components when they are not cached (each build a no-op then), then runs every test file (unit,
// infra, integration) under node's built-in runner on Node 22.
// Usage: node scripts/run-tests.mjs [glob-or-file ...]   (default: all of test/**/*.test.ts)
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';
import { globSync, readFileSync, rmSync } from 'node:fs';
import { findLeftovers, killLeftovers } from './testplane-leftovers.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`run-tests: Node ${process.versions.node} found; the Lambda runtime is Node 22. Run through npm (node@22 is a devDependency).`);
  process.exit(1);
}

for (const [script, what] of [
  ['build-testplane.sh', 'the Kubernetes test control plane'],
  ['build-testbed.sh', 'the test bed (kubectl, kruise, Prometheus, Lambda RIE, LocalStack)'],
  ['build-dataplane.sh', 'the data plane (Traefik, the Gateway API CRDs)'],
]) {
  const build = spawnSync('bash', [path.join(root, 'scripts', script)], { stdio: 'inherit' });
  if (build.status !== 0) {
    console.error(`run-tests: building ${what} failed; integration tests cannot run.`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

const patterns = process.argv.slice(2);
const files = [...new Set((patterns.length > 0 ? patterns : ['test/**/*.test.ts']).flatMap((p) => (p.includes('*') ? globSync(p, { cwd: root }) : [p])))].sort();
// Files that run alone, after the others: they provoke the machine's own timing (chaos with kills
// and outages, processes killed -9, injected faults with timeouts), where a neighbour's CPU would
// change what they exercise. Every other file runs two at a time: integration files mostly wait on
// their control plane (kwok readiness, MinReadySeconds, polls), so two share the 2 cores well.
const SOLO = [/soak\./, /native\.behaviour/, /\.crash\./, /parentkill/, /kube-client\.faults/, /exit-cleanup/];
const concurrency = Number(process.env.ROLLOUTS_TEST_CONCURRENCY ?? 2);
const lanes = [
  { name: 'shared', concurrency, files: files.filter((f) => !SOLO.some((re) => re.test(f))) },
  { name: 'solo', concurrency: 1, files: files.filter((f) => SOLO.some((re) => re.test(f))) },
].filter((lane) => lane.files.length > 0);

// Tag every process of this run (the control-plane daemons inherit the environment) so the check
// below only ever reports this run's processes, never another run's on the same machine.
const runId = randomUUID();
// What test files of this run share (the synthesized stack with its bundles: test/support/aws/cloudAssembly.ts).
const sharedDir = path.join(os.tmpdir(), `rollouts-test-shared-${runId}`);
const totals = { passed: 0, failed: 0 };
let status = 0;
for (const lane of lanes) {
  const summaryFile = path.join(os.tmpdir(), `rollouts-test-summary-${runId}-${lane.name}.json`);
  const args = [
    '--import', 'tsx',
    '--test',
    `--test-concurrency=${lane.concurrency}`,
    // A hung test must fail, not stall CI: 10 minutes is far beyond any test here (the longest take ~1 min).
    '--test-timeout=600000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts/summary-reporter.mjs')}`, '--test-reporter-destination=stdout',
    ...lane.files,
  ];
  console.log(`run-tests: ${lane.files.length} file(s), ${lane.concurrency} at a time (${lane.name})`);
  const run = spawnSync(process.execPath, args, {
    stdio: 'inherit', cwd: root,
    env: { ...process.env, ROLLOUTS_TEST_RUN_ID: runId, ROLLOUTS_TEST_SUMMARY_FILE: summaryFile, ROLLOUTS_TEST_SHARED_DIR: sharedDir },
  });
  const counts = readSummary(summaryFile);
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  if (run.status !== 0) status = run.status ?? 1;
}
rmSync(sharedDir, { recursive: true, force: true });

// No process left behind: a test-bed process that outlives its test file is a harness bug (a
// missing stop(), a lost exit hook) and would leak into the next run, so it fails the run.
const leftovers = await findLeftovers(runId);
if (leftovers.length > 0) {
  console.error(`run-tests: ${leftovers.length} test-bed process(es) outlived the test run; killing them:`);
  for (const { pid, cmdline } of leftovers) console.error(`  ${pid} ${cmdline}`);
  killLeftovers(leftovers);
  console.error('run-tests: FAILED: a test process ended without stopping what it started (stop() not awaited, or the process was SIGKILLed before its exit hook ran).');
  // The final line CI reads must carry this failure too.
  console.log(`${totals.passed} passed, ${totals.failed + 1} failed (leftover processes)`);
  process.exit(1);
}
// The last line CI reads: the lanes together.
if (lanes.length > 1) console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(status);

function readSummary(file) {
  try {
    const counts = JSON.parse(readFileSync(file, 'utf8'));
    rmSync(file, { force: true });
    return counts;
  } catch {
    return { passed: 0, failed: 1 };
  }
}
