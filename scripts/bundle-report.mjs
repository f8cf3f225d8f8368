#!/usr/bin/env node
// Bundle size and cold-start cost of each Lambda, built exactly as the CDK stack builds it
// (infra/bundling.ts bundleLambda). For each functions/<name>/handler.ts: bytes minified, gzip,
// source map, the largest contributors (esbuild metafile, by package), and the median time to
// import the bundle in a fresh Node process (module init, as a cold start pays it before the first
// invocation), with the deployed NODE_OPTIONS and without them; beside the wall time, the CPU time
// of that import, which other work on a shared machine inflates far less.
// Usage: node scripts/bundle-report.mjs [--json] [--runs=N] [--top=N] [name ...]   (run on Node 22: npm exec -- node ...)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { BUNDLE_RUNTIME_ENV, FUNCTION_NAMES, bundleContributors, bundleLambda, entryPath } from '../infra/bundling.ts';
import { ENV } from '../shared/app/config.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const json = args.includes('--json');
const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice('--runs='.length) ?? 10);
const top = Number(args.find((a) => a.startsWith('--top='))?.slice('--top='.length) ?? 8);
const only = args.filter((a) => !a.startsWith('--'));
const unknown = only.filter((n) => !FUNCTION_NAMES.includes(n));
if (unknown.length > 0 || !(runs >= 1)) {
  console.error(`bundle-report: unknown function ${unknown.join(', ')} or bad --runs; functions: ${FUNCTION_NAMES.join(', ')}`);
  process.exit(2);
}
if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`bundle-report: Node ${process.versions.node}; the Lambda runtime is Node 22. Run through npm (node@22 is a devDependency).`);
  process.exit(2);
}

// What the module needs at import time (handlers read their configuration at cold start). The
// endpoint points at a closed local port so an accidental AWS call at init fails fast, offline.
const initEnv = {
  PATH: process.env.PATH,
  AWS_REGION: 'eu-west-1',
  AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
  [ENV.tableName]: 'bundle-report',
  [ENV.queueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/bundle-report.fifo',
  [ENV.triggerQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/bundle-report',
  [ENV.eventBusName]: 'serverless-rollouts',
  POWERTOOLS_SERVICE_NAME: 'serverless-rollouts',
  POWERTOOLS_METRICS_NAMESPACE: 'ServerlessRollouts',
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

/**
 * Milliseconds from before import() to after the module (and its top-level await) evaluated, in a
 * new process: wall time, and the CPU time the process spent meanwhile (user + system).
 */
function importTime(file, extraEnv) {
  const code = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); `
    + 'const u = process.cpuUsage(c); process.stdout.write(JSON.stringify([performance.now() - t, (u.user + u.system) / 1000]));';
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', code], { env: { ...initEnv, ...extraEnv }, encoding: 'utf8', timeout: 60_000 });
  if (res.status !== 0) throw new Error(`import failed: ${(res.stderr || res.error?.message || '').trim().split('\n').slice(-3).join(' | ')}`);
  const [wallMs, cpuMs] = JSON.parse(res.stdout);
  return { wallMs, cpuMs };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function measure(name, workDir) {
  const entry = entryPath(name);
  if (!existsSync(path.join(root, entry))) return { name, error: `${entry} does not exist` };
  const { file, outputs, loadedAtInit, metafile } = await bundleLambda(name, path.join(workDir, name), root);
  const code = Buffer.concat(outputs.map((o) => readFileSync(o.path)));
  const result = {
    name,
    // Everything deployed (the entry and its chunks), and what a cold start reads of it.
    minifiedBytes: code.length,
    initBytes: outputs.filter((o) => loadedAtInit.includes(o.path)).reduce((n, o) => n + o.bytes, 0),
    files: outputs.length,
    gzipBytes: gzipSync(code).length,
    sourceMapBytes: outputs.reduce((n, o) => n + statSync(`${o.path}.map`).size, 0),
    topContributors: bundleContributors(metafile).slice(0, top),
  };
  try {
    importTime(file, {}); // warm the file cache; not counted
    // Interleaved, so a busy moment on the machine weighs on both columns alike.
    const deployed = [];
    const bare = [];
    for (let i = 0; i < runs; i += 1) {
      deployed.push(importTime(file, BUNDLE_RUNTIME_ENV));
      bare.push(importTime(file, {}));
    }
    return {
      ...result,
      initMsMedian: round(median(deployed.map((t) => t.wallMs))),
      initMsMedianWithoutNodeOptions: round(median(bare.map((t) => t.wallMs))),
      initCpuMsMedian: round(median(deployed.map((t) => t.cpuMs))),
      runs,
    };
  } catch (err) {
    return { ...result, error: err.message };
  }
}

const round = (n) => Math.round(n * 10) / 10;
const kb = (n) => (n === undefined ? '' : `${(n / 1024).toFixed(1)} KiB`);

const workDir = mkdtempSync(path.join(os.tmpdir(), 'bundle-report-'));
let results;
try {
  results = [];
  for (const name of only.length > 0 ? only : FUNCTION_NAMES) results.push(await measure(name, workDir));
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

if (json) {
  console.log(JSON.stringify({ node: process.versions.node, nodeOptions: BUNDLE_RUNTIME_ENV.NODE_OPTIONS, loadAverage: os.loadavg(), results }, null, 2));
} else {
  const rows = [['function', 'minified (files)', 'loaded at init', 'gzip', 'source maps', `init ms (median of ${runs})`, 'init CPU ms', 'init ms without NODE_OPTIONS', 'note']];
  for (const r of results) {
    rows.push([r.name, `${kb(r.minifiedBytes)} (${r.files})`, kb(r.initBytes), kb(r.gzipBytes), kb(r.sourceMapBytes), String(r.initMsMedian ?? ''), String(r.initCpuMsMedian ?? ''), String(r.initMsMedianWithoutNodeOptions ?? ''), r.error ?? '']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
  for (const r of results) {
    console.log(`\n${r.name}, largest contributors: ${(r.topContributors ?? []).map((c) => `${c.name} ${kb(c.bytes)}`).join(', ')}`);
  }
  console.log(`\nNode ${process.versions.node}; deployed NODE_OPTIONS="${BUNDLE_RUNTIME_ENV.NODE_OPTIONS}"; gzip at zlib's default level; load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')} (other work on the machine lengthens the wall times).`);
}
process.exit(results.some((r) => r.error) ? 1 : 0);
