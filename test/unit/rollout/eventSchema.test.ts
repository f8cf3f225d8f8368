// The published event schema: the committed file is what the zod definition generates, and every
// event the planner emits over whole releases validates against the committed file (ajv, JSON Schema
// 2020-12), wrapped in the EventBridge envelope the bus delivers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EVENT } from '../../../shared/rollout/events.ts';
import { EVENT_SCHEMA_SOURCE, eventJsonSchema } from '../../../shared/rollout/eventSchema.ts';
import type { RolloutEvent } from '../../../shared/rollout/types.ts';
import { command, rolloutSpec, setup } from '../../support/sim/scenario.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';

const committed = JSON.parse(readFileSync(new URL('../../../schemas/rollout-event.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;

export function eventValidator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv.compile(committed);
}

function envelope(e: RolloutEvent): Record<string, unknown> {
  return { version: '0', id: 'a1b2', 'detail-type': e.type, source: EVENT_SCHEMA_SOURCE, account: '123456789012', time: e.at, region: 'eu-west-1', resources: [], detail: e };
}

describe('the EventBridge event schema', () => {
  it('is committed as generated from its zod definition (npm run schemas)', () => {
    assert.deepEqual(committed, JSON.parse(JSON.stringify(eventJsonSchema())));
  });

  it('accepts every event of a release, an abort, a pause, a failure and a broken contract', () => {
    const d = setup(10, rolloutSpec({ progressDeadlineSeconds: 60 }));
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'pause' })]);
    d.settle([command({ type: 'resume' })]);
    d.settle([command({ type: 'approve' })]);
    d.settle([command({ type: 'abort' })]);
    d.sim.setImage('app:v3');
    d.sim.neverReady.add(revisionOf('app:v3'));
    d.settle();
    d.advance(120);
    d.settle();
    d.settle([command({ type: 'approve' })]);
    d.sim.problems = ['annotation rollouts.kruise.io/original-max-surge is missing'];
    d.settle();
    const events = d.results.flatMap((r) => r.events);
    const types = new Set(events.map((e) => e.type));
    for (const t of [EVENT.Adopted, EVENT.ReleaseStarted, EVENT.AwaitingApproval, EVENT.Paused, EVENT.StepApproved, EVENT.RollbackStarted, EVENT.ReleaseAborted, EVENT.ReleaseFailed, EVENT.CommandIgnored, EVENT.Degraded]) {
      assert.ok(types.has(t), `${t} emitted (${[...types].join(', ')})`);
    }
    const validate = eventValidator();
    for (const e of events) assert.ok(validate(envelope(e)), `${e.type}: ${JSON.stringify(validate.errors)}`);
    assert.ok(events.every((e) => e.reason !== ''), 'every event carries the reason');
  });

  it('rejects an event without its reason, or with an unknown cause kind', () => {
    const validate = eventValidator();
    const e = { type: 'Batch Ready', rollout: { cluster: 'c', namespace: 'n', name: 'w' }, releaseId: 'r1', phase: 'Progressing', stepIndex: 0, message: 'm', at: '2030-01-01T00:00:00.000Z', by: null, reason: 'r', cause: null } as RolloutEvent;
    assert.ok(validate(envelope(e)), JSON.stringify(validate.errors));
    const { reason: _, ...withoutReason } = e;
    assert.equal(validate(envelope(withoutReason as RolloutEvent)), false);
    assert.equal(validate(envelope({ ...e, cause: { kind: 'Weather', object: null, field: null, detail: '', since: null, until: null } } as unknown as RolloutEvent)), false);
  });
});
