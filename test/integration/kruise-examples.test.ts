// The Kruise documents of examples/kruise/ (openkruise/rollouts' own e2e fixtures) through the real
// `rollouts validate` executable: the ones that use the fields we parse are accepted, each saying
// what `apply` still refuses (nothing, for traffic routing in place and blue-green on a Deployment); the ones that use customNetworkRefs are refused, naming the field.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = 'examples/kruise';

function validate(file: string) {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/rollouts.js'), 'validate', '-f', file], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const accepted: Record<string, RegExp> = {
  'canary.yaml': /Deployment echoserver, 5 step\(s\).*traffic through Ingress echoserver \(nginx\): 20% → 40% → 60% → 80% → 100%; valid, but apply refuses it until serverless-rollouts runs spec\.strategy\.canary\.trafficRoutings/,
  // Traffic routing in place on a Deployment runs (docs/traffic.md): nothing left for apply to refuse.
  'partition.yaml': /^OK .*Rollout default\/rollouts-demo → Deployment echoserver, 5 step\(s\): 20% → 40% → 60% → 80% → 100%; traffic through Ingress echoserver \(nginx\): 20% → - → - → - → -\n$/,
  // Blue-green of a Deployment runs (shared/rollout/blueGreen.ts), Kruise's way: no scale-down delay in a Kruise document.
  'bluegreen.yaml': /^OK .*Deployment echoserver, 4 step\(s\).*: 0% → 0% → 50% → 100%; blue-green: the old revision scaled down 0s after the switch\n$/,
  'bluegreen-cloneset.yaml': /CloneSet echoserver, 3 step\(s\).*: 0% → 50% → 100%; blue-green: .*; valid, but apply refuses it until serverless-rollouts runs spec\.strategy\.blueGreen, /,
  'native-daemonset.yaml': /^OK .*Rollout kube-system\/rollouts-demo → DaemonSet fluentd-elasticsearch, 2 step\(s\): 1 → 100%\n$/,
};

describe('Kruise\'s own v1beta1 documents (examples/kruise)', () => {
  test('the directory holds exactly the documents this test knows', () => {
    assert.deepEqual(readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.yaml')).sort(), Object.keys(accepted).sort());
  });

  for (const [file, summary] of Object.entries(accepted)) {
    test(`${file} validates`, () => {
      const r = validate(`${dir}/${file}`);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, summary);
    });
  }

  for (const file of readdirSync(path.join(root, dir, 'refused'))) {
    test(`refused/${file} is refused, naming customNetworkRefs`, () => {
      const r = validate(`${dir}/refused/${file}`);
      assert.equal(r.code, 1);
      assert.match(r.out, /^spec\.strategy\.canary\.trafficRoutings\[0\]\.customNetworkRefs: not supported by serverless-rollouts \(Kruise custom network providers driven by Lua \(Istio, APISIX\.\.\.\), customNetworkRefs\); remove it$/m);
    });
  }
});
