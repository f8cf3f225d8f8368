// Waves × clusters: which clusters the fleet releases and in which wave, from scratch and when a
// cluster joins mid-run; and what an apply is refused for, given the clusters registered then.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { assignWaves, fleetClusters, joinWave, placementIssues, resolveConcurrency, resolveMaxFailures, waveOrder } from '../../../shared/fleet/placement.ts';
import type { ClusterInfo } from '../../../shared/fleet/clusters.ts';
import { cluster, fleetDocument } from '../../support/sim/fleetSim.ts';

const spec = (waves: unknown[], selector?: unknown) => parseFleetRollout(fleetDocument('web', { waves, ...(selector ? { selector } : {}) }));
const names = (a: ReturnType<typeof assignWaves>) => a.map((w) => [w.wave.name, w.members.map((m) => m.cluster.name)]);
const CANARY = { name: 'canary', selector: { matchLabels: { ring: 'canary' } } };

const fleet = [cluster('c1', { ring: 'canary' }), cluster('eu-1', { region: 'eu' }), cluster('eu-2', { region: 'eu' }), cluster('us-1', { region: 'us' }), cluster('dev', {}, null)];
fleet[4] = { ...fleet[4] as ClusterInfo, labels: { env: 'dev' } };

describe('assignWaves', () => {
  it('takes the fleet\'s clusters only, wave by wave from those left, and puts clusters no wave selects in the last wave', () => {
    const s = spec([CANARY, { name: 'eu', selector: { matchLabels: { region: 'eu' } } }, { name: 'last', selector: { matchLabels: { ring: 'none' } } }]);
    assert.deepEqual(fleetClusters(s, fleet).map((c) => c.name), ['c1', 'eu-1', 'eu-2', 'us-1']);
    assert.deepEqual(names(assignWaves(s, fleetClusters(s, fleet))), [['canary', ['c1']], ['eu', ['eu-1', 'eu-2']], ['last', ['us-1']]]);
    assert.deepEqual(assignWaves(s, fleetClusters(s, fleet))[2]?.members.map((m) => m.placedBy), ['last-wave']);
  });

  it('counts and percents take from the clusters left, in the wave\'s order, a percent rounded up to at least one', () => {
    const s = spec([{ name: 'one', count: 1 }, { name: 'third', percent: 34 }, { name: 'rest' }]);
    // 4 clusters: one takes c1; 34% of the 3 left is 1.02, so 2.
    assert.deepEqual(names(assignWaves(s, fleetClusters(s, fleet))), [['one', ['c1']], ['third', ['eu-1', 'eu-2']], ['rest', ['us-1']]]);
    const tiny = spec([{ name: 'p', percent: 1 }, { name: 'rest' }]);
    assert.deepEqual(names(assignWaves(tiny, fleetClusters(tiny, fleet))), [['p', ['c1']], ['rest', ['eu-1', 'eu-2', 'us-1']]]);
  });

  it('orders a wave by its sorting label, as integers when every value is one, then clusters without it, then by name', () => {
    const cs = [cluster('a', { order: '10' }), cluster('b', { order: '9' }), cluster('c'), cluster('d', { order: '9' })];
    assert.deepEqual(waveOrder(cs, 'order').map((c) => c.name), ['b', 'd', 'a', 'c']);
    const text = [cluster('a', { zone: 'b2' }), cluster('b', { zone: 'a10' }), cluster('c', { zone: 'a9' })];
    assert.deepEqual(waveOrder(text, 'zone').map((c) => c.name), ['b', 'c', 'a'], 'not integers: compared as text');
    const s = spec([{ name: 'first', count: 2, sortingLabelKey: 'order' }, { name: 'rest' }], {});
    assert.deepEqual(names(assignWaves(s, cs)), [['first', ['b', 'd']], ['rest', ['a', 'c']]]);
  });

  it('puts a cluster that joins mid-run in the first wave whose selector selects it, else the last', () => {
    const s = spec([CANARY, { name: 'eu', selector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] } }, { name: 'any-region', selector: { matchExpressions: [{ key: 'region', operator: 'Exists' }] } }, { name: 'rest' }]);
    assert.deepEqual(joinWave(s.waves, cluster('eu-9', { region: 'eu' })), { index: 1, placedBy: 'selector' }, 'the first that selects it wins');
    assert.deepEqual(joinWave(s.waves, cluster('edge-1', { zone: 'x' })), { index: 3, placedBy: 'last-wave' });
  });

  it('assigns every fleet cluster to exactly one wave (property)', () => {
    const label = fc.constantFrom('a', 'b', 'c');
    const clusterArb = fc.record({ ring: label, order: fc.constantFrom('1', '2', '3') });
    const waveArb = fc.oneof(
      fc.record({ selector: label.map((v) => ({ matchLabels: { ring: v } })) }),
      fc.record({ count: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ percent: fc.integer({ min: 1, max: 100 }) }),
    );
    const selectors = (waves: object[]) => waves.map((w) => JSON.stringify((w as { selector?: unknown }).selector)).filter((x) => x !== undefined);
    fc.assert(fc.property(fc.array(clusterArb, { maxLength: 12 }), fc.array(waveArb, { minLength: 1, maxLength: 4 }), (labels, waves) => {
      // Two waves with the same selector are refused when applied (rules.ts): not a fleet to place.
      fc.pre(new Set(selectors(waves)).size === selectors(waves).length);
      const cs = labels.map((l, i) => cluster(`k${i}`, l));
      const s = spec(waves.map((w, i) => ({ name: `w${i}`, ...w })), {});
      const placed = assignWaves(s, cs).flatMap((a) => a.members.map((m) => m.cluster.name));
      assert.deepEqual([...placed].sort(), cs.map((c) => c.name).sort());
    }));
  });
});

describe('placementIssues: what an apply is refused for', () => {
  it('refuses a clusterSelector that selects no registered cluster, listing what is registered', () => {
    const s = spec([{ name: 'all' }], { matchLabels: { env: 'staging' } });
    const [issue] = placementIssues(s, fleet);
    assert.equal(issue?.path, 'spec.clusterSelector');
    assert.match(issue?.reason ?? '', /selects no cluster \(env=staging\): none of the 5 registered clusters matches \(c1: env=prod,ring=canary; /);
    assert.match(placementIssues(s, [])[0]?.reason ?? '', /no cluster is registered/);
  });

  it('refuses a wave selector that selects none of the fleet\'s clusters', () => {
    const [issue] = placementIssues(spec([{ name: 'canary', selector: { matchLabels: { ring: 'canry' } } }, { name: 'rest' }]), fleet);
    assert.equal(issue?.path, 'spec.waves[0].selector');
    assert.match(issue?.reason ?? '', /selects none of the fleet's 4 clusters \(ring=canry;/);
  });

  it('refuses two waves whose selectors both select a cluster, naming it and the earlier wave', () => {
    const found = placementIssues(spec([{ name: 'eu', selector: { matchLabels: { region: 'eu' } } }, { name: 'eu-and-us', selector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu', 'us'] }] } }]), fleet);
    assert.deepEqual(found, [{ path: 'spec.waves[1].selector', reason: 'also selects cluster eu-1, which spec.waves[0] ("eu") selects: a cluster belongs to one wave; make the selectors exclusive' }]);
  });

  it('refuses a wave the waves before it leave without a cluster', () => {
    const found = placementIssues(spec([{ name: 'most', percent: 100 }, { name: 'rest' }]), fleet);
    assert.deepEqual(found, [{ path: 'spec.waves[1]', reason: 'would get no cluster: the waves before it take all 4 of the fleet\'s clusters' }]);
  });

  it('accepts a fleet whose waves each get a cluster', () => {
    assert.deepEqual(placementIssues(spec([CANARY, { name: 'rest' }]), fleet), []);
  });
});

describe('resolving maxConcurrency and maxFailures', () => {
  it('rounds maxConcurrency percents down with at least one (kubefleet), and maxFailures percents down (OCM)', () => {
    assert.deepEqual([resolveConcurrency(1, 10), resolveConcurrency(3, 2), resolveConcurrency('50%', 5), resolveConcurrency('10%', 5), resolveConcurrency('100%', 7)], [1, 3, 2, 1, 7]);
    assert.deepEqual([resolveMaxFailures(0, 10), resolveMaxFailures(2, 10), resolveMaxFailures('10%', 25), resolveMaxFailures('10%', 5)], [0, 2, 2, 0]);
  });
});
