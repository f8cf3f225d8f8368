// The traffic bench's reading of the audit log and the probe (bench/lib/trafficSteps.ts): a step
// timed from the wrong pod, an older generation's acceptance or a share read before the weight
// landed would report a figure that means nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEvent } from '../../../shared/adapters/local/controlPlane.ts';
import { ROLLOUTS_USER } from '../../../shared/adapters/local/controlPlane.ts';
import { servedAt, stepTimings, type StepReadOptions } from '../../../bench/lib/trafficSteps.ts';
import type { ProbeAnswer } from '../../../bench/testbed/dataplane/load.ts';

const T0 = Date.parse('2026-12-02T10:00:00Z');
let seq = 0;
const ts = (ms: number): string => new Date(T0 + ms).toISOString().replace(/Z$/, '000Z');

function event(ms: number, e: Partial<AuditEvent>): AuditEvent {
  seq += 1;
  return { auditID: `a${seq}`, stage: 'ResponseComplete', verb: 'patch', requestURI: '', user: { username: 'admin' }, responseStatus: { code: 200 }, requestReceivedTimestamp: ts(ms), ...e };
}

const podReady = (ms: number, pod: string): AuditEvent => event(ms + 2, {
  userAgent: 'kwok/v0.7.0', objectRef: { resource: 'pods', subresource: 'status', namespace: 'ns', name: pod },
  requestObject: { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ts(ms) }] } },
});
const podDeleted = (ms: number, pod: string): AuditEvent => event(ms, { verb: 'delete', userAgent: 'kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:replicaset-controller', objectRef: { resource: 'pods', namespace: 'ns', name: pod } });
const serviceWrite = (ms: number): AuditEvent => event(ms, { verb: 'create', user: { username: ROLLOUTS_USER }, objectRef: { resource: 'services', namespace: 'ns', name: 'web-canary' } });
const routeWrite = (ms: number, weight: number, generation: number): AuditEvent => event(ms, {
  user: { username: ROLLOUTS_USER }, objectRef: { resource: 'httproutes', apiGroup: 'gateway.networking.k8s.io', namespace: 'ns', name: 'web' },
  responseObject: { metadata: { generation }, spec: { rules: [{ backendRefs: [{ name: 'web', weight: 100 - weight }, { name: 'web-canary', weight }] }] } },
});
const accepted = (ms: number, generation: number): AuditEvent => event(ms, {
  verb: 'update', user: { username: 'traefik-gateway' }, objectRef: { resource: 'httproutes', subresource: 'status', namespace: 'ns', name: 'web' },
  requestObject: { status: { parents: [{ conditions: [{ type: 'Accepted', status: 'True', observedGeneration: generation }] }] } },
});

/** Answers every 10 ms from `fromMs`: the canary every `every`-th answer (0: never), or every answer failing. */
function answers(fromMs: number, toMs: number, every: number, status = 200): ProbeAnswer[] {
  const out: ProbeAnswer[] = [];
  for (let ms = fromMs, i = 0; ms < toMs; ms += 10, i += 1) {
    out.push({ at: T0 + ms, status, revision: status !== 200 ? null : every > 0 && i % every === every - 1 ? 'new' : 'old' });
  }
  return out;
}

const OPTIONS: StepReadOptions = {
  canaryReplicaSet: 'web-new', canaryRevision: 'new', service: 'web', proxyUser: 'traefik-gateway',
  gracePeriodSeconds: 3, window: 20, tolerancePoints: 5,
};

describe('the traffic bench reads each step from the audit log and the probe', () => {
  it('times a step from its k-th new pod Ready (not another ReplicaSet\'s pod, not a stable pod still going), through our write and the acceptance of its generation, to the canary at its share', () => {
    const events = [
      podReady(300, 'web-old-zzzzz'), podReady(400, 'web-new-bbbbb'), podReady(400, 'web-new-bbbbb'), podDeleted(450, 'web-old-aaaaa'),
      serviceWrite(500), routeWrite(3500, 10, 2), accepted(3400, 1), accepted(3600, 2),
      podDeleted(6000, 'web-old-ccccc'), podDeleted(6100, 'web-old-ddddd'), podReady(5900, 'web-new-eeeee'), podReady(6500, 'web-new-fffff'),
      routeWrite(6700, 30, 3), accepted(6750, 3),
    ];
    // 0% until 5 s, 10% (1 in 10) until 8 s, then 30% (3 in 10 as 1 in 3 and a bit).
    const probe = [...answers(0, 5000, 0), ...answers(5000, 8000, 10), ...answers(8000, 10000, 3)];
    const { timings, problems } = stepTimings(events, probe, [{ weight: 10, replicas: 1 }, { weight: 30, replicas: 3 }], OPTIONS);
    assert.deepEqual(problems, []);
    const [first, second] = timings;
    assert.deepEqual([first?.availableAt, first?.servicesAt, first?.writeAt, first?.acceptedAt, first?.servedAt].map((t) => (t ?? NaN) - T0), [400, 500, 3500, 3600, 5090]);
    assert.equal(first?.totalMs, 4690);
    assert.equal(first?.graceMarginMs, 3500 + 3000 - 5090);
    // The 3rd new pod turned Ready at 6.5 s (its predecessors at 0.4 and 5.9 s).
    assert.equal((second?.availableAt ?? NaN) - T0, 6500);
    assert.equal(second?.servicesAt, null);
    assert.equal((second?.acceptedAt ?? NaN) - T0, 6750);
    // The share is read over 20 answers (200 ms here): a window may reach back before the switch by at most that much.
    const served = (second?.servedAt ?? NaN) - T0;
    assert.ok(served >= 8000 - (second?.windowMs ?? 0) && served < 8100, `30% served at ${served} ms, not before the switch`);
  });

  it('reports a weight written before its batch was Available as a problem, not a sample', () => {
    const events = [podDeleted(100, 'web-old-aaaaa'), podReady(900, 'web-new-bbbbb'), routeWrite(500, 10, 2), accepted(600, 2)];
    const { timings, problems } = stepTimings(events, answers(0, 3000, 10), [{ weight: 10, replicas: 1 }], OPTIONS);
    assert.deepEqual(timings, []);
    assert.match(problems[0] ?? '', /written 400 ms before the batch was Available/);
  });

  it('does not take a status write for an older generation as the acceptance', () => {
    const events = [podDeleted(100, 'web-old-aaaaa'), podReady(200, 'web-new-bbbbb'), routeWrite(300, 10, 5), accepted(400, 4)];
    const { timings, problems } = stepTimings(events, answers(0, 3000, 10), [{ weight: 10, replicas: 1 }], OPTIONS);
    assert.deepEqual(timings, []);
    assert.match(problems[0] ?? '', /accepts generation 5/);
  });

  it('finds the canary at a share only among 200s, and never when the share is not reached', () => {
    const failing = answers(0, 1000, 0, 502);
    const probe = [...failing, ...answers(1000, 2000, 2)];
    assert.equal((servedAt(probe, T0, Infinity, 'new', 50, 20, 5)?.at ?? NaN) - T0, 1010);
    assert.equal(servedAt(probe, T0, Infinity, 'new', 10, 20, 5), null);
    assert.equal(servedAt(probe, T0, T0 + 1100, 'new', 50, 20, 5), null, 'fewer answers than a window before the next write');
  });
});
