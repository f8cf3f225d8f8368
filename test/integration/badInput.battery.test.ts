// The bad-input battery (issue 13): every case of bench/testbed/battery/cases.ts sent as a user would,
// over HTTP to local mode's server in front of the real API handler, or through the `rollouts` CLI,
// against the real apiserver and dynalite. Each case asserts the status or exit code, an error naming
// the field with the reason, and that nothing changed: no item of the table written, no reconcile
// queued, no write by the product's user at the apiserver (its audit log; dry-runs are not writes),
// no workload's generation, annotations or labels changed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../../shared/cli/main.ts';
import { processIO } from '../../shared/cli/io.ts';
import type { RuntimeIO } from '../../shared/cli/runtime.ts';
import { BATTERY, CATEGORIES, isCliCase, type CliCase, type HttpCase } from '../../bench/testbed/battery/cases.ts';
import { Battery, type Snapshot } from '../support/battery/harness.ts';
import { setUpFixtures } from '../support/battery/setup.ts';
import { CLUSTER } from '../../bench/testbed/engine.ts';
import { NAMESPACE } from '../../bench/testbed/battery/fixtures.ts';

let battery: Battery;

interface Outcome {
  code: number;
  /** What the error says, as the user reads it. */
  text: string;
  issues: { path: string; reason: string }[];
}

async function sendHttp(c: HttpCase): Promise<Outcome> {
  const body = c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  const res = await battery.http(c.api ?? 'local', c.method, c.path, body, c.headers);
  const error = res.json.error;
  assert.ok(error && typeof error.message === 'string' && error.message !== '', `an {"error": {"message"}} body, got ${res.status} ${res.text.slice(0, 300)}`);
  return { code: res.status, text: error.message as string, issues: error.issues ?? [] };
}

async function runCli(c: CliCase): Promise<Outcome> {
  for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(path.join(battery.home, name), text);
  const out: string[] = [];
  const err: string[] = [];
  const io: RuntimeIO = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    readFile: processIO.readFile,
    runtime: { env: { ROLLOUTS_HOME: battery.home, ROLLOUTS_CLUSTER: CLUSTER, NO_COLOR: '1' }, cwd: battery.home, isTTY: false },
  };
  const code = await run(c.argv.map((a) => a.replaceAll('{home}', battery.home)), io);
  return { code, text: err.join(''), issues: [] };
}

function assertNamesField(c: HttpCase | CliCase, o: Outcome): void {
  if (o.issues.length > 0) {
    const issue = o.issues.find((i) => i.path === c.field);
    assert.ok(issue, `an issue at ${c.field}; got ${JSON.stringify(o.issues)}`);
    assert.match(issue.reason, c.reason);
  } else {
    // The field as a word of its own: "name" is not named by "names" or "namespace".
    assert.ok(namesWord(o.text, c.field), `the error names ${c.field}: ${o.text}`);
    assert.match(o.text, c.reason);
  }
}

/** `word` appears in `text` with no letter, digit, "_", "-" or "." joined to either side. */
function namesWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.-])${escaped}($|[^\\w-]|\\.(\\s|$))`).test(text);
}

function assertUnchanged(before: Snapshot, afterCase: Snapshot): void {
  assert.deepEqual(afterCase.clusterWrites, [], 'no write by the product\'s user at the apiserver');
  assert.equal(afterCase.queueRuns, before.queueRuns, 'no reconcile queued');
  assert.deepEqual(afterCase.items, before.items, 'no item of the table written');
  assert.equal(afterCase.workloads, before.workloads, 'no workload changed');
}

describe('bad input gets a clear error naming the field, and changes nothing', () => {
  before(async () => {
    battery = await Battery.start();
    await setUpFixtures(battery);
  });
  after(async () => {
    await battery?.stop();
  });

  test('the battery has at least 60 cases, every category covered', () => {
    assert.ok(BATTERY.length >= 60, `${BATTERY.length} cases`);
    for (const category of CATEGORIES) assert.ok(BATTERY.some((c) => c.category === category), category);
    const names = BATTERY.map((c) => `${c.category}: ${c.name}`);
    assert.deepEqual(names.filter((n, i) => names.indexOf(n) !== i), [], 'case names are unique');
  });

  for (const c of BATTERY) {
    test(`${c.category}: ${c.name}`, async () => {
      battery.markAudit();
      const beforeCase = await battery.snapshot();
      const outcome = isCliCase(c) ? await runCli(c) : await sendHttp(c);
      assert.equal(outcome.code, isCliCase(c) ? c.exit : c.status, `${isCliCase(c) ? 'exit code' : 'status'}; the error: ${outcome.text} ${JSON.stringify(outcome.issues)}`);
      assertNamesField(c, outcome);
      assertUnchanged(beforeCase, await battery.snapshot());
    });
  }

  test('the snapshots see a change: an accepted command, its reconcile request and a write by the product\'s user all show', async () => {
    battery.markAudit();
    const beforeCase = await battery.snapshot();
    await battery.command('web', 'pause');
    await battery.engine.client.write({ verb: 'patch', ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NAMESPACE, name: 'web' }, patchType: 'merge', patch: { metadata: { annotations: { 'battery/control': 'x' } } }, reason: 'control' });
    const afterCase = await battery.snapshot();
    assert.notDeepEqual(afterCase.items, beforeCase.items);
    assert.equal(afterCase.queueRuns, beforeCase.queueRuns + 1);
    assert.equal(afterCase.clusterWrites.length, 1, afterCase.clusterWrites.join('\n'));
    assert.notEqual(afterCase.workloads, beforeCase.workloads);
  });
});
