// Where `undo` goes and how it moves (issue 21, shared/rollout/undo.ts): after an abort, an undo
// without a revision goes to the last revision that completed a release (not to the aborted one,
// every pod at once); an undo to a revision that never completed a release goes through the
// Rollout's steps like a release; with no earlier completed revision it is ignored with the reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT } from '../../../shared/rollout/events.ts';
import { undoTarget } from '../../../shared/rollout/undo.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';
import { command, rolloutSpec, setup, steps, type Driver } from '../../support/sim/scenario.ts';

const V1 = revisionOf('app:v1');
const V2 = revisionOf('app:v2');
const V3 = revisionOf('app:v3');

/** v1 adopted, v2 released to completion, a release of v3 aborted at its first approval. */
function afterAbort(): Driver {
  const d = setup(4, rolloutSpec({ steps: steps('50%', '100%') }));
  d.sim.setImage('app:v2');
  d.settle();
  d.settle([command({ type: 'approve' })]);
  assert.equal(d.state.phase, 'Completed');
  d.sim.setImage('app:v3');
  d.settle();
  assert.equal(d.sim.count(V3), 2, 'the first batch of v3');
  d.settle([command({ type: 'abort' })]);
  assert.equal(d.state.phase, 'Aborted');
  assert.equal(d.sim.template, V2);
  return d;
}

describe('plan: undo', () => {
  it('goes back, after an abort, to the last revision that completed a release, every pod at once', () => {
    const d = afterAbort();
    d.settle([command({ type: 'undo' })]);
    assert.equal(d.sim.template, V1, 'not the aborted v3');
    assert.equal(d.sim.count(V1), 4);
    assert.equal(d.sim.count(V3), 0);
    assert.equal(d.state.phase, 'Completed');
    assert.equal(d.state.lastRelease?.kind, 'undo');
    const started = d.results.flatMap((r) => r.events).filter((e) => e.type === EVENT.UndoStarted);
    assert.match(started.at(-1)?.message ?? '', /^undo to revision 1 \(app=app:v1\) by tester: it completed a release, every pod moves at once$/);
  });

  it('goes through the Rollout\'s steps to a revision that never completed a release', () => {
    const d = afterAbort();
    const v3 = d.sim.view().revisions.find((r) => r.id === V3);
    assert.ok(v3);
    d.settle([command({ type: 'undo', toRevision: v3.number })]);
    assert.equal(d.state.release?.kind, 'release', 'a release, with its steps');
    assert.equal(d.state.release?.targetRevision, V3);
    assert.equal(d.state.release?.stepState, 'StepPaused', 'waiting at step 1 for approval');
    assert.equal(d.state.release?.requestedBy, 'tester');
    assert.equal(d.sim.count(V3), 2, 'only the first batch moved');
    assert.equal(d.sim.count(V2), 2);
    d.settle([command({ type: 'approve' })]);
    assert.equal(d.state.phase, 'Completed');
    assert.equal(d.sim.count(V3), 4);
    assert.deepEqual(d.state.completedRevisions, [V1, V2, V3], 'now v3 completed a release too');
  });

  it('is ignored with the reason when no earlier revision completed a release', () => {
    const d = setup(4, rolloutSpec({ steps: steps('50%', '100%') }));
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'abort' })]);
    const r = d.step([command({ type: 'undo' })]);
    assert.match(r.events.find((e) => e.type === EVENT.CommandIgnored)?.message ?? '',
      /undo by tester ignored: there is no earlier revision that completed a release to go back to \(retained: 1, 2\); name one with toRevision/);
    assert.equal(d.sim.template, V1);
  });

  it('names the field of a revision that is not retained', () => {
    const d = afterAbort();
    assert.equal(undoTarget(d.state, d.sim.view(), 9), 'toRevision: revision 9 is not retained (retained: 1, 2, 3)');
  });
});
