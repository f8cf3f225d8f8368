// The fleet cases of the bad-input battery (test/support/battery/fleetCases.ts), each checked here
// against the pure layers that will answer it: the FleetRollout parser and the placement rules for an
// apply (422), the body parser of a fleet verb (400) and the fleet's own state (409), the cluster
// label rules (400). Every case must get its expected field with its expected reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError, type FieldIssue } from '../../../shared/errors.ts';
import { parseFleetCommand, type FleetVerb } from '../../../shared/api/fleetCommandBodies.ts';
import { HttpError } from '../../../shared/api/httpError.ts';
import { clusterPlacementIssues } from '../../../shared/fleet/clusters.ts';
import { fleetCommandProblem } from '../../../shared/fleet/commands.ts';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { placementIssues } from '../../../shared/fleet/placement.ts';
import type { FleetState } from '../../../shared/fleet/types.ts';
import { FLEET_BATTERY, FLEET_CATEGORIES, type FleetCase } from '../../support/battery/fleetCases.ts';
import { FLEET_CLUSTERS, FLEET_FIXTURES, fleetFixtureState, type FleetFixture } from '../../support/battery/fleetFixtures.ts';

const states = new Map<FleetFixture, FleetState>();
function stateOf(fixture: FleetFixture): FleetState {
  let s = states.get(fixture);
  if (!s) {
    s = fleetFixtureState(fixture);
    states.set(fixture, s);
  }
  return s;
}

/** What the API would answer: the status and the issues naming fields. */
function answer(c: FleetCase): { status: number; issues: FieldIssue[] } {
  switch (c.category) {
    case 'FleetRollout spec (apply)': {
      try {
        const spec = parseFleetRollout(c.body);
        return { status: 422, issues: placementIssues(spec, FLEET_CLUSTERS) };
      } catch (err) {
        if (err instanceof ValidationError) return { status: 422, issues: err.issues };
        throw err;
      }
    }
    case 'fleet commands': {
      const verb = c.path.split('/').at(-1) as FleetVerb;
      try {
        const { body } = parseFleetCommand(verb, c.body);
        const problem = fleetCommandProblem(stateOf(c.fixture as FleetFixture), body);
        return { status: problem ? 409 : 200, issues: problem ? [{ path: problem.field, reason: problem.reason }] : [] };
      } catch (err) {
        if (err instanceof HttpError) return { status: err.status, issues: err.issues ?? [] };
        throw err;
      }
    }
    case 'cluster labels':
      return { status: 400, issues: clusterPlacementIssues(c.body as object) };
  }
}

describe('the fleet cases of the bad-input battery', () => {
  it('has at least 30 cases, each named once, in the categories it declares', () => {
    assert.ok(FLEET_BATTERY.length >= 30, `${FLEET_BATTERY.length} cases`);
    assert.equal(new Set(FLEET_BATTERY.map((c) => `${c.category}/${c.name}`)).size, FLEET_BATTERY.length);
    for (const category of FLEET_CATEGORIES) assert.ok(FLEET_BATTERY.some((c) => c.category === category), category);
    assert.deepEqual([...new Set(FLEET_BATTERY.flatMap((c) => (c.fixture ? [c.fixture] : [])))].sort(), [...FLEET_FIXTURES].sort());
  });

  for (const c of FLEET_BATTERY) {
    it(`${c.category}: ${c.name} → ${c.status} naming ${c.field}`, () => {
      const got = answer(c);
      assert.equal(got.status, c.status);
      const named = got.issues.filter((i) => i.path === c.field);
      assert.ok(named.length > 0, `no issue at ${c.field}: ${JSON.stringify(got.issues)}`);
      assert.ok(named.some((i) => c.reason.test(i.reason)), `reason at ${c.field}: ${named.map((i) => i.reason).join(' | ')}`);
    });
  }
});
