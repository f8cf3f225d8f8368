// What lists the workload kinds is generated from the registry of drivers (scripts/generate.ts): the
// core's table of kinds, the RBAC rules of infra/k8s/rollouts-rbac.yaml and README.md's table of
// workloads. The committed files must be exactly the generator's output, so a driver's declaration
// and what is documented or enforced from it cannot drift apart.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generatedFiles, rbacManifest } from '../../../scripts/generate.ts';
import { WORKLOAD_DRIVERS } from '../../../shared/workloads/registry.ts';
import { WORKLOAD_KINDS, WORKLOAD_TYPES } from '../../../shared/rollout/workloadKinds.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const committed = (repoPath: string): string => readFileSync(path.join(ROOT, repoPath), 'utf8');

describe('the files generated from the registry of drivers', () => {
  for (const file of generatedFiles()) {
    test(`${file.path} is exactly the generator's output`, () => {
      assert.ok(committed(file.path) === file.content, `${file.path} is stale: run \`node --import tsx scripts/generate.ts\``);
    });
  }

  test('the core\'s table of kinds is each driver\'s own declaration, in registry order', () => {
    assert.deepEqual(WORKLOAD_KINDS, Object.keys(WORKLOAD_DRIVERS));
    for (const kind of WORKLOAD_KINDS) assert.deepEqual(WORKLOAD_TYPES[kind], WORKLOAD_DRIVERS[kind].type, kind);
  });

  test('the RBAC rules are regenerated from the drivers, not kept from the file', () => {
    const emptied = committed('infra/k8s/rollouts-rbac.yaml').replace(/(rules:\n)(?: {2}.*\n)+/g, '$1');
    assert.notEqual(emptied, committed('infra/k8s/rollouts-rbac.yaml'));
    assert.equal(rbacManifest(emptied), committed('infra/k8s/rollouts-rbac.yaml'));
  });
});
