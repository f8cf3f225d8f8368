// Local mode's start-up question "who am I on this cluster" survives one lost answer: a restart of
// local mode (after a crash, a kill -9) met an apiserver connection reset mid-soak and did not start.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { chooseIdentity } from '../../../shared/local/identity.ts';

describe('local mode: choosing the identity it drives a cluster as', () => {
  let server: http.Server;
  let requests = 0;
  let kc: KubeConfig;
  before(async () => {
    // The first request's connection is reset with no answer; the rest are a SelfSubjectReview's.
    server = http.createServer((req, res) => {
      requests += 1;
      if (requests === 1) {
        req.socket.destroy();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', status: { userInfo: { username: 'bot', groups: ['serverless-rollouts', 'system:authenticated'] } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('asks again when a connection is reset with no answer, and runs as itself once in the group serverless-rollouts', async () => {
    assert.deepEqual(await chooseIdentity(kc), { kind: 'own', partitionRefusal: null });
    assert.equal(requests, 2, 'one reset, then the answer');
  });
});
