// The published fleet event schema: the committed file is what the zod definition generates, and
// every event the fleet emits over whole releases (completed, halted and rolled back, aborted,
// paused, clusters joining and leaving) validates against it in the EventBridge envelope.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { FLEET_EVENT } from '../../../shared/fleet/events.ts';
import { fleetEventJsonSchema } from '../../../shared/fleet/eventSchema.ts';
import { EVENT_SCHEMA_SOURCE } from '../../../shared/rollout/eventSchema.ts';
import type { FleetEvent } from '../../../shared/fleet/types.ts';
import { FleetSim, cluster, fleetCommand, fleetDocument } from '../../support/sim/fleetSim.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';

const committed = JSON.parse(readFileSync(new URL('../../../schemas/fleet-event.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv.compile(committed);
}

const envelope = (e: FleetEvent) => ({ version: '0', id: 'a1', 'detail-type': e.type, source: EVENT_SCHEMA_SOURCE, account: '123456789012', time: e.at, region: 'eu-west-1', resources: [], detail: e });

describe('the fleet event schema', () => {
  it('is committed as generated from its zod definition (npm run schemas)', () => {
    assert.deepEqual(committed, JSON.parse(JSON.stringify(fleetEventJsonSchema())));
  });

  it('accepts every event of releases that complete, halt and roll back, are aborted, paused, and see clusters come and go', () => {
    const clusters = [cluster('canary', { ring: 'canary' }), cluster('eu'), cluster('us')];
    const f = FleetSim.of(fleetDocument('web', { template: { progressDeadlineSeconds: 60 }, spec: { rollbackOnFailure: true }, waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { approval: true, gates: [{ name: 'ok', http: { url: 'http://127.0.0.1:9/ok' } }] } }, { name: 'rest' }] }), clusters);
    const v2 = fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } } });
    f.settle([v2, fleetCommand({ type: 'approve', wave: 'rest' })]);
    f.clusters.push(cluster('eu-2'));
    f.settle();
    f.clusters = f.clusters.filter((c) => c.name !== 'eu-2');
    f.recordGate([{ gate: 'ok', wave: 'canary', measurement: { result: 'pass', value: '1' } }]);
    f.settle([fleetCommand({ type: 'pause' })]);
    f.down.add('us');
    f.membersStep();
    f.settle([fleetCommand({ type: 'resume' }), fleetCommand({ type: 'approve' })]);
    f.down.delete('us');
    f.settle();
    f.member('canary').sim.neverReady.add(revisionOf('app:v3'));
    f.settle([fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    f.advance(61);
    f.settle();
    f.settle([fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v4' } } })]);
    f.settle([fleetCommand({ type: 'abort' }), fleetCommand({ type: 'abort' })]);
    const events = f.results.flatMap((r) => r.events);
    const types = new Set(events.map((e) => e.type));
    for (const t of [FLEET_EVENT.ReleaseStarted, FLEET_EVENT.WaveStarted, FLEET_EVENT.MemberPermitted, FLEET_EVENT.WaveReleased, FLEET_EVENT.AnalysisStarted, FLEET_EVENT.AwaitingApproval, FLEET_EVENT.WaveApproved, FLEET_EVENT.WaveCompleted, FLEET_EVENT.Paused, FLEET_EVENT.Resumed, FLEET_EVENT.MemberJoined, FLEET_EVENT.MemberLeft, FLEET_EVENT.MemberUnreachable, FLEET_EVENT.ReleaseCompleted, FLEET_EVENT.MemberFailed, FLEET_EVENT.Halted, FLEET_EVENT.RollbackStarted, FLEET_EVENT.RolledBack, FLEET_EVENT.Aborted, FLEET_EVENT.CommandIgnored]) {
      assert.ok(types.has(t), `${t} emitted (${[...types].join(', ')})`);
    }
    const validate = validator();
    for (const e of events) assert.ok(validate(envelope(e)), `${e.type}: ${JSON.stringify(validate.errors)}`);
    assert.ok(events.every((e) => e.reason !== ''), 'every event carries the fleet\'s reason');
  });

  it('rejects an event with an unknown type or phase', () => {
    const validate = validator();
    const e: FleetEvent = { type: 'Fleet Wave Started', fleet: { name: 'web' }, releaseId: 'f1', phase: 'Progressing', wave: 'canary', cluster: null, message: 'm', at: '2030-01-01T00:00:00.000Z', by: null, reason: 'r', cause: null };
    assert.ok(validate(envelope(e)));
    assert.ok(!validate(envelope({ ...e, type: 'Wave Started' })));
    assert.ok(!validate(envelope({ ...e, phase: 'Healthy' as never })));
  });
});
