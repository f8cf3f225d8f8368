// The real `rollouts` executable: bin/rollouts.js in a child Node process, as a user or CI runs it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/rollouts.js');

function rollouts(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function withFile(content: string, fn: (file: string) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'rollouts-cli-'));
  try {
    const file = path.join(dir, 'rollout.yaml');
    writeFileSync(file, content);
    fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('rollouts plan (executable)', () => {
  test('prints the exact JSON plan for a 10-replica Deployment', () => {
    const r = rollouts('plan', '--kind', 'Deployment', '--replicas', '10', '--steps', '1,50%,100%', '--json');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '{"replicas":10,"batches":[{"step":1,"replicas":1,"updated":1,"stable":9,"pause":"approval"},{"step":2,"replicas":"50%","updated":5,"stable":5,"pause":"approval"},{"step":3,"replicas":"100%","updated":10,"stable":0,"pause":"none"}]}\n');
  });

  test('prints an aligned table with a header line', () => {
    const r = rollouts('plan', '--kind', 'Deployment', '--replicas', '10', '--steps', '1,50%:60s,100%');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, [
      'Kind: Deployment  Replicas: 10',
      '',
      'STEP  REPLICAS  UPDATED  STABLE  PAUSE',
      '1     1         1        9       approval',
      '2     50%       5        5       60s',
      '3     100%      10       0       none',
      '',
    ].join('\n'));
  });

  test('plans examples/rollout.yaml against 10 replicas', () => {
    const r = rollouts('plan', '-f', 'examples/rollout.yaml', '--replicas', '10', '--json');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), {
      replicas: 10,
      batches: [
        { step: 1, replicas: 1, updated: 1, stable: 9, pause: 'approval' },
        { step: 2, replicas: '50%', updated: 5, stable: 5, pause: 'approval' },
        { step: 3, replicas: '100%', updated: 10, stable: 0, pause: 'none' },
      ],
    });
  });

  test('plans every kind with --kind, counting nodes for the DaemonSets', () => {
    const plan = (kind: string, n: string) => {
      const r = rollouts('plan', '--kind', kind, '--replicas', n, '--steps', '1,50%,100%', '--json');
      assert.equal(r.code, 0, r.err);
      return (JSON.parse(r.out) as { batches: { updated: number }[] }).batches.map((b) => b.updated);
    };
    for (const kind of ['Deployment', 'StatefulSet', 'CloneSet', 'AdvancedStatefulSet']) assert.deepEqual(plan(kind, '6'), [1, 3, 6], kind);
    for (const kind of ['DaemonSet', 'AdvancedDaemonSet']) assert.deepEqual(plan(kind, '6'), [1, 3, 6], kind);
    assert.deepEqual(plan('Deployment', '5').slice(1), [3, 5], 'a percent rounds up');
    const table = rollouts('plan', '--kind', 'AdvancedDaemonSet', '--replicas', '6', '--steps', '1,100%');
    assert.match(table.out, /^Kind: AdvancedDaemonSet {2}Nodes: 6\n/);
    const unknown = rollouts('plan', '--kind', 'Job', '--replicas', '6', '--steps', '1,100%');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /Allowed choices are Deployment, StatefulSet, DaemonSet, CloneSet, AdvancedStatefulSet, AdvancedDaemonSet/);
  });

  test('exits 2 on a bad flag', () => {
    const r = rollouts('plan', '--kind', 'Deployment', '--replicas', '10', '--steps', '1,100%', '--colour');
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown option '--colour'/);
  });
});

describe('rollouts validate (executable)', () => {
  test('exits 0 with one OK line for each example Rollout', () => {
    for (const file of ['examples/rollout.yaml', 'examples/kruise-rollout.yaml']) {
      const r = rollouts('validate', '-f', file);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, new RegExp(`^OK ${file}: Rollout default/web → Deployment web, 3 step\\(s\\)`));
      assert.equal(r.out.split('\n').length, 2, 'one line');
    }
  });

  test('accepts the example Rollout of every kind, Kruise\'s format and ours', () => {
    const examples: [string, string][] = [
      ['examples/kinds/statefulset-rollout.yaml', 'StatefulSet db'],
      ['examples/kinds/statefulset-ondelete-manual.yaml', 'StatefulSet db'],
      ['examples/kinds/daemonset-rollout.yaml', 'DaemonSet agent'],
      ['examples/kinds/cloneset-rollout.yaml', 'CloneSet api'],
      ['examples/kinds/advanced-statefulset-rollout.yaml', 'AdvancedStatefulSet cache'],
      ['examples/kinds/advanced-daemonset-rollout.yaml', 'AdvancedDaemonSet collector'],
    ];
    for (const [file, workload] of examples) {
      const r = rollouts('validate', '-f', file);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, new RegExp(`^OK ${file}: Rollout default/\\S+ → ${workload}, 3 step\\(s\\)`));
    }
  });

  test('exits 1 and lists every problem with its field path', () => {
    withFile([
      'apiVersion: rollouts.serverless-rollouts.io/v1alpha1',
      'kind: Rollout',
      'metadata: {name: web}',
      'spec:',
      '  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
      '  releaseWindows: [{days: [Mon], start: "18:00", end: "08:00", timeZone: Europe/Paris}]',
      '  strategy:',
      '    canary:',
      '      steps: [{replicas: 50%}, {replicas: 150%, traffic: 10%}]',
    ].join('\n'), (file) => {
      const r = rollouts('validate', '-f', file);
      assert.equal(r.code, 1);
      assert.deepEqual(r.out.trimEnd().split('\n'), [
        'spec.releaseWindows[0].end: must be after start (18:00); a window cannot cross midnight: split it in two (use "24:00" for end of day)',
        'spec.strategy.canary.steps[1].replicas: must be <= 100%',
        'spec.strategy.canary.steps[1].traffic: has no effect without spec.strategy.canary.trafficRoutings (Kruise ignores it silently); add the route to set, or remove it',
      ]);
    });
  });

  test('exits 1 on a file that does not exist', () => {
    const r = rollouts('validate', '-f', 'examples/missing.yaml');
    assert.equal(r.code, 1);
    assert.match(r.err, /cannot read examples\/missing\.yaml/);
  });

  test('exits 2 when -f is missing', () => {
    assert.equal(rollouts('validate').code, 2);
  });
});
