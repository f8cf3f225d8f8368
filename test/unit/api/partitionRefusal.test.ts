// Local mode acting as a user who may not impersonate the product's identity, on a cluster whose
// admission policy serverless-rollouts-partition-hold would deny our Partition hand-back
// (shared/local/identity.ts): a Partition Rollout is refused at apply with what to grant, naming
// the field; the default strategy is taken (issue 21).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PATH, api, rolloutDoc } from './apiFixtures.ts';

const WHY = 'local mode drives this cluster as alice, which is not in the group serverless-rollouts …';
const ours = (strategy?: string) => {
  const doc = rolloutDoc();
  return { ...doc, apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1', spec: { ...(doc.spec as object), ...(strategy ? { deploymentStrategy: strategy } : {}) } };
};

describe('PUT /v1/rollouts/... where Partition cannot complete', () => {
  test('refuses a Partition Rollout naming spec.deploymentStrategy and the reason', async () => {
    const a = api({ partitionRefusal: WHY });
    const res = await a.call('PUT', PATH, ours('Partition'));
    assert.equal(res.status, 422);
    const issues = (res.json.error as { issues: { path: string; reason: string }[] }).issues;
    assert.deepEqual(issues, [{ path: 'spec.deploymentStrategy', reason: `Partition cannot complete here: ${WHY}` }]);
  });

  test('takes the default strategy there, and Partition where nothing refuses it', async () => {
    assert.equal((await api({ partitionRefusal: WHY }).call('PUT', PATH, ours())).status, 201);
    assert.equal((await api().call('PUT', PATH, ours('Partition'))).status, 201);
  });
});
