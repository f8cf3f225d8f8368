// The CLI run in memory: files come from a map, output is collected (no terminal, no disk).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../../shared/cli/main.ts';
import type { CliIO } from '../../../shared/cli/io.ts';

const ROLLOUT = `apiVersion: rollouts.serverless-rollouts.io/v1alpha1
kind: Rollout
metadata: {name: web}
spec:
  workloadRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  strategy:
    canary:
      steps:
        - replicas: 20%
          pause: {duration: 30}
        - replicas: 100%
`;
const BROKEN = `apiVersion: rollouts.kruise.io/v1beta1
kind: Rollout
metadata: {name: web}
spec:
  workloadRef: {apiVersion: apps/v1, kind: Job, name: web}
  strategy:
    canary:
      steps: [{replicas: 0%}]
`;

async function cli(argv: string[], files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file '${path}'`);
      return text;
    },
  };
  const code = await run(argv, io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('rollouts plan', () => {
  test('prints the batches as JSON', async () => {
    const r = await cli(['plan', '--kind', 'Deployment', '--replicas', '4', '--steps', '1,100%', '--json']);
    assert.equal(r.code, 0);
    assert.equal(r.out, '{"replicas":4,"batches":[{"step":1,"replicas":1,"updated":1,"stable":3,"pause":"approval"},{"step":2,"replicas":"100%","updated":4,"stable":0,"pause":"none"}]}\n');
  });

  test('takes kind and steps from a Rollout file', async () => {
    const r = await cli(['plan', '-f', 'r.yaml', '--replicas', '5'], { 'r.yaml': ROLLOUT });
    assert.equal(r.code, 0);
    assert.equal(r.out, [
      'Rollout: default/web  Workload: StatefulSet db  Replicas: 5',
      '',
      'STEP  REPLICAS  UPDATED  STABLE  PAUSE',
      '1     20%       1        4       30s',
      '2     100%      5        0       none',
      '',
    ].join('\n'));
  });

  test('is a usage error without --kind/--steps or -f', async () => {
    const r = await cli(['plan', '--replicas', '5']);
    assert.equal(r.code, 2);
    assert.match(r.err, /give --kind and --steps, or -f/);
  });

  test('is a usage error to combine -f with --steps', async () => {
    assert.equal((await cli(['plan', '-f', 'r.yaml', '--replicas', '5', '--steps', '1'], { 'r.yaml': ROLLOUT })).code, 2);
  });

  test('fails with the field paths when the file is invalid', async () => {
    const r = await cli(['plan', '-f', 'bad.yaml', '--replicas', '5'], { 'bad.yaml': BROKEN });
    assert.equal(r.code, 1);
    assert.match(r.out, /^spec\.strategy\.canary\.steps\[0\]\.replicas: must be > 0%$/m);
  });
});

describe('rollouts validate', () => {
  test('prints one OK line for a valid file', async () => {
    const r = await cli(['validate', '-f', 'r.yaml'], { 'r.yaml': ROLLOUT });
    assert.equal(r.code, 0);
    assert.equal(r.out, 'OK r.yaml: Rollout default/web → StatefulSet db, 2 step(s): 20% → 100%; deadline 600s per batch\n');
  });

  test('prints "<path>: <reason>" per problem and exits 1', async () => {
    const r = await cli(['validate', '-f', 'bad.yaml'], { 'bad.yaml': BROKEN });
    assert.equal(r.code, 1);
    assert.deepEqual(r.out.trimEnd().split('\n'), [
      'spec.strategy.canary.steps[0].replicas: must be > 0%',
      'spec.workloadRef.kind: unsupported workloadRef apps/v1 Job; supported: apps/v1 Deployment, apps/v1 StatefulSet, apps/v1 DaemonSet, apps.kruise.io/v1alpha1 CloneSet, apps.kruise.io/v1beta1 StatefulSet, apps.kruise.io/v1alpha1 DaemonSet',
    ]);
  });

  test('checks every document of a multi-document file and names the bad one', async () => {
    const r = await cli(['validate', '-f', 'all.yaml'], { 'all.yaml': `${ROLLOUT}---\n${BROKEN}---\n` });
    assert.equal(r.code, 1);
    assert.match(r.out, /^document 2: spec\.strategy\.canary\.steps\[0\]\.replicas: must be > 0%$/m);
    assert.doesNotMatch(r.out, /document 1:/);
    assert.match(r.err, /1 of 2 document\(s\) invalid/);
  });

  test('fails clearly on an unreadable file or a YAML syntax error', async () => {
    const missing = await cli(['validate', '-f', 'nope.yaml']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /cannot read nope\.yaml/);
    const syntax = await cli(['validate', '-f', 'bad.yaml'], { 'bad.yaml': 'spec: [1, 2\n' });
    assert.equal(syntax.code, 1);
    assert.match(syntax.err, /bad\.yaml: YAML syntax error/);
  });

  test('fails on a file with no document', async () => {
    const r = await cli(['validate', '-f', 'empty.yaml'], { 'empty.yaml': '# nothing\n---\n' });
    assert.equal(r.code, 1);
    assert.match(r.err, /no YAML document/);
  });
});

describe('rollouts (program)', () => {
  test('help for every command shows an example and the exit codes, exit 0', async () => {
    for (const command of ['plan', 'validate']) {
      const r = await cli([command, '--help']);
      assert.equal(r.code, 0);
      assert.match(r.out, /Examples:\n {2}# .+\n {2}\$ rollouts /);
      assert.match(r.out, /Exit codes:\n {2}0 {2}success\n {2}1 {2}failure.*\n {2}2 {2}usage error/);
    }
  });

  test('bad flags, unknown commands and no command are usage errors (2)', async () => {
    assert.equal((await cli(['plan', '--replicas', 'ten', '--kind', 'Deployment', '--steps', '1'])).code, 2);
    assert.equal((await cli(['plan', '--replicas', '3', '--kind', 'Job', '--steps', '1'])).code, 2);
    assert.equal((await cli(['validate', '--nope'])).code, 2);
    assert.equal((await cli(['deploy'])).code, 2);
    assert.equal((await cli([])).code, 2);
  });

  test('an unknown command with --help is an error naming it, exit 2, not the top-level help', async () => {
    for (const argv of [['fleets', '--help'], ['fleets', '-h'], ['fleets']]) {
      const r = await cli(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.equal(r.out, '');
      assert.match(r.err, /^error: unknown command 'fleets'\n/);
    }
    assert.equal((await cli(['help', 'plan'])).code, 0);
  });

  test('a mistyped option is named as unknown, not reported as a missing required one', async () => {
    const r = await cli(['release', 'web', '--imgae', 'app=nginx:1.28']);
    assert.equal(r.code, 2);
    assert.match(r.err, /^error: unknown option '--imgae'\n\(Did you mean --image\?\)/);
    const missing = await cli(['validate']);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /^error: required option '-f, --file <rollout\.yaml>' not specified\n/);
  });

  test('--version prints the package version', async () => {
    const r = await cli(['--version']);
    assert.equal(r.code, 0);
    assert.match(r.out, /^\d+\.\d+\.\d+\n$/);
  });
});
