#!/usr/bin/env node
// The one test command (`npm test`): builds the Kubernetes test control plane and the other test-bed
// components when they are not cached (each build a no-op then), then runs every test file (unit,
// infra, integration) under node's built-in runner on Node 22.
// Usage: node scripts/run-tests.mjs [--write-durations] [glob-or-file ...]   (default: all of test/**/*.test.ts)
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';
import { existsSync, globSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const args = process.argv.slice(2);
// `--write-durations`: after the run, the measured wall time of each file that ran replaces its entry
// in the committed table below (the lead refreshes it from a full CI-like run).
const writeDurations = args.includes('--write-durations');
const patterns = args.filter((a) => a !== '--write-durations');
// Relative to the repository, as the durations table names them (a leading ./ dropped).
const files = [...new Set((patterns.length > 0 ? patterns : ['test/**/*.test.ts']).flatMap((p) => (p.includes('*') ? globSync(p, { cwd: root }) : [p]))
  .map((f) => path.relative(root, path.resolve(root, f))))].sort();
// Files that run alone, after the others: they provoke the machine's own timing (chaos with kills
// and outages, processes killed -9, injected faults with timeouts), where a neighbour's CPU would
// change what they exercise. Every other file runs two at a time: integration files mostly wait on
// their control plane (kwok readiness, MinReadySeconds, polls), so two share the 2 cores well, and so
// does test/integration/pipeline.crash.test.ts (its crashes are thrown at named points in-process:
// no process killed, no timeout injected).
const SOLO = [/soak\./, /native\.behaviour/, /localmode\.crash/, /parentkill/, /kube-client\.faults/, /exit-cleanup/];
const concurrency = Number(process.env.ROLLOUTS_TEST_CONCURRENCY ?? 2);

// The seconds each file took in a whole run (the summary reporter's spans), committed so that the
// two-at-a-time lane starts its longest files first: `node --test` itself starts files in name
// order, which can leave one long file running alone at the end. A file not in the table counts as
// long (it starts early) if it is an integration file, as short otherwise.
const DURATIONS_FILE = path.join(root, 'scripts/test-durations.json');
const durations = readDurations();
const QUICK = /^test\/(unit|infra)\//;
const estimate = (f) => durations[f] ?? (QUICK.test(f) ? 2 : 120);
// A job is one `node --test` process. Each integration file is a job of its own, so that the lane
// can order them; the unit and infrastructure files (seconds each) share a few jobs of about
// QUICK_JOB_SECONDS, one file at a time: short CPU-bound jobs that fill the lane's end, rather than
// one long one that would start first, beside the longest integration file.
const QUICK_JOB_SECONDS = 40;
function jobsOf(list, { group }) {
  const cost = (job) => job.reduce((sum, f) => sum + estimate(f), 0);
  const quick = group ? list.filter((f) => QUICK.test(f)) : [];
  const chunks = [];
  for (const f of quick) {
    const last = chunks.at(-1);
    if (last && cost(last) + estimate(f) <= QUICK_JOB_SECONDS) last.push(f);
    else chunks.push([f]);
  }
  const jobs = [...list.filter((f) => !quick.includes(f)).map((f) => [f]), ...chunks];
  // Longest first: each slot that frees takes the longest job left (list scheduling), so the lane
  // ends within one short job of the other slot.
  return jobs.map((job) => ({ files: job, estimate: cost(job) })).sort((a, b) => b.estimate - a.estimate || a.files[0].localeCompare(b.files[0]));
}
const shared = files.filter((f) => !SOLO.some((re) => re.test(f)));
const solo = files.filter((f) => SOLO.some((re) => re.test(f)));
const lanes = [
  { name: 'shared', concurrency, files: shared, jobs: jobsOf(shared, { group: true }) },
  { name: 'solo', concurrency: 1, files: solo, jobs: jobsOf(solo, { group: false }) },
].filter((lane) => lane.files.length > 0);

// Tag every process of this run (the control-plane daemons inherit the environment) so the check
// below only ever reports this run's processes, never another run's on the same machine.
const runId = randomUUID();
// What test files of this run share (the synthesized stack with its bundles: test/support/aws/cloudAssembly.ts).
const sharedDir = path.join(os.tmpdir(), `rollouts-test-shared-${runId}`);
const totals = { passed: 0, failed: 0 };
/** Measured wall time of each file that ran, in seconds. */
const measured = {};
let status = 0;
// Interrupted: the test processes get the signal (their exit hooks stop what they started), and no
// further process starts.
const running = new Set();
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    for (const child of running) child.kill(signal);
  });
}
let jobNumber = 0;
for (const lane of lanes) {
  const started = Date.now();
  console.log(`run-tests: ${lane.files.length} file(s) in ${lane.jobs.length} process(es), ${lane.concurrency} at a time (${lane.name})`);
  const queue = [...lane.jobs];
  await Promise.all(Array.from({ length: Math.min(lane.concurrency, queue.length) }, async () => {
    for (let job = queue.shift(); job && !interrupted; job = queue.shift()) await runJob(job, lane);
  }));
  console.log(`run-tests: ${lane.name} lane done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
rmSync(sharedDir, { recursive: true, force: true });

const slowest = Object.entries(measured).sort((a, b) => b[1] - a[1]).slice(0, 15);
if (slowest.length > 1) console.log(`\nslowest files (s):\n${slowest.map(([f, sec]) => `  ${sec.toFixed(0).padStart(5)}  ${f}`).join('\n')}\n`);
if (writeDurations) {
  const table = { ...durations, ...Object.fromEntries(Object.entries(measured).map(([f, s]) => [f, Math.max(1, Math.round(s))])) };
  const existing = Object.fromEntries(Object.entries(table).filter(([f]) => existsSync(path.join(root, f))).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(existing, null, 2)}\n`);
  console.log(`run-tests: ${Object.keys(measured).length} duration(s) written to ${path.relative(root, DURATIONS_FILE)}`);
}

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
// The last line CI reads: every process of the run together.
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(interrupted ? 130 : status);

/** One `node --test` process; its output is printed whole when it ends, so two never interleave. */
async function runJob(job, lane) {
  jobNumber += 1;
  const summaryFile = path.join(os.tmpdir(), `rollouts-test-summary-${runId}-${jobNumber}.json`);
  const nodeArgs = [
    '--import', 'tsx',
    '--test',
    '--test-concurrency=1',
    // A hung test must fail, not stall CI: 10 minutes is far beyond any test here (the longest take ~1 min).
    '--test-timeout=600000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts/summary-reporter.mjs')}`, '--test-reporter-destination=stdout',
    ...job.files,
  ];
  const label = job.files.length === 1 ? job.files[0] : `${job.files.length} files`;
  const started = Date.now();
  const child = spawn(process.execPath, nodeArgs, {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ROLLOUTS_TEST_RUN_ID: runId, ROLLOUTS_TEST_SUMMARY_FILE: summaryFile, ROLLOUTS_TEST_SHARED_DIR: sharedDir },
  });
  running.add(child);
  const chunks = [];
  child.stdout.on('data', (d) => chunks.push(d));
  child.stderr.on('data', (d) => chunks.push(d));
  const code = await new Promise((resolve) => {
    child.once('error', (err) => { chunks.push(Buffer.from(`${err.stack}\n`)); resolve(1); });
    child.once('close', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
  running.delete(child);
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(`\nrun-tests: ${label} (${lane.name}) took ${seconds.toFixed(0)} s\n`);
  process.stdout.write(Buffer.concat(chunks));
  const counts = readSummary(summaryFile);
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  Object.assign(measured, counts.spans ?? (job.files.length === 1 ? { [job.files[0]]: seconds } : {}));
  if (code !== 0) status = code;
}

function readDurations() {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

function readSummary(file) {
  try {
    const counts = JSON.parse(readFileSync(file, 'utf8'));
    rmSync(file, { force: true });
    return counts;
  } catch {
    return { passed: 0, failed: 1 };
  }
}
