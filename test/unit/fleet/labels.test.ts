// Cluster labels and label selectors follow Kubernetes exactly (apimachinery's label validation and
// LabelSelectorAsSelector): the same keys and values are valid, and a selector selects the same clusters.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clusterPlacementIssues } from '../../../shared/fleet/clusters.ts';
import { describeSelector, labelKeyProblem, labelValueProblem, sameSelector, selectorSchema, selects, toSelector, type LabelSelector } from '../../../shared/fleet/labels.ts';

const sel = (doc: unknown): LabelSelector => toSelector(selectorSchema.parse(doc));

describe('label keys and values', () => {
  it('accepts the keys Kubernetes accepts, with or without a DNS prefix', () => {
    for (const key of ['ring', 'topology.kubernetes.io/region', 'a', 'A_b.c-d', 'example.com/x', `${'a'.repeat(253)}/n`, 'x'.repeat(63)]) {
      assert.equal(labelKeyProblem(key), null, key);
    }
  });

  it('refuses the keys Kubernetes refuses, saying which part is wrong', () => {
    assert.match(labelKeyProblem('a/b/c') ?? '', /at most one "\/"/);
    assert.match(labelKeyProblem('/ring') ?? '', /prefix before "\/" must not be empty/);
    assert.match(labelKeyProblem('Example.com/ring') ?? '', /prefix must be a DNS-1123 subdomain/);
    assert.match(labelKeyProblem('example.com/') ?? '', /name part must not be empty/);
    assert.match(labelKeyProblem('x'.repeat(64)) ?? '', /at most 63 characters/);
    assert.match(labelKeyProblem('-ring') ?? '', /starting and ending with an alphanumeric/);
    assert.match(labelKeyProblem('ri ng') ?? '', /alphanumeric characters/);
  });

  it('accepts the empty value and refuses values with spaces or over 63 characters', () => {
    assert.equal(labelValueProblem(''), null);
    assert.equal(labelValueProblem('eu-west-1'), null);
    assert.match(labelValueProblem('eu west') ?? '', /must be empty or consist of/);
    assert.match(labelValueProblem('v'.repeat(64)) ?? '', /at most 63/);
    assert.match(labelValueProblem('x.') ?? '', /ending with an alphanumeric/);
  });

  it('names the label at fault, and checks a registration\'s time zone', () => {
    assert.deepEqual(clusterPlacementIssues({ labels: { ring: 'canary', 'bad key': 'x', env: 'has space' }, timeZone: 'Mars/Olympus' }).map((i) => i.path).sort(), [
      'labels.env', 'labels["bad key"]', 'timeZone',
    ]);
    assert.deepEqual(clusterPlacementIssues({ labels: { ring: 'canary' }, timeZone: 'Asia/Tokyo' }), []);
  });
});

describe('label selectors', () => {
  const labels = { env: 'prod', region: 'eu-west-1' };

  it('selects with every operator as Kubernetes does, NotIn and DoesNotExist matching a missing key', () => {
    const cases: [unknown, boolean][] = [
      [{ matchLabels: { env: 'prod' } }, true],
      [{ matchLabels: { env: 'prod', ring: 'canary' } }, false],
      [{ matchExpressions: [{ key: 'region', operator: 'In', values: ['eu-west-1', 'us-east-1'] }] }, true],
      [{ matchExpressions: [{ key: 'ring', operator: 'In', values: ['canary'] }] }, false],
      [{ matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['eu-west-1'] }] }, false],
      [{ matchExpressions: [{ key: 'ring', operator: 'NotIn', values: ['canary'] }] }, true],
      [{ matchExpressions: [{ key: 'region', operator: 'Exists' }] }, true],
      [{ matchExpressions: [{ key: 'ring', operator: 'Exists' }] }, false],
      [{ matchExpressions: [{ key: 'ring', operator: 'DoesNotExist' }] }, true],
      [{ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, false],
      [{ matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['us-east-1'] }] }, true],
      [{}, true],
    ];
    for (const [doc, expected] of cases) assert.equal(selects(sel(doc), labels), expected, JSON.stringify(doc));
  });

  it('treats an empty label value as a value: In [""] selects it, Exists too', () => {
    assert.equal(selects(sel({ matchExpressions: [{ key: 'tier', operator: 'In', values: [''] }] }), { tier: '' }), true);
    assert.equal(selects(sel({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }), { tier: '' }), true);
    assert.equal(selects(sel({ matchLabels: { tier: '' } }), {}), false);
  });

  it('refuses values on Exists and DoesNotExist, none on In and NotIn, and unknown operators', () => {
    const issue = (doc: unknown) => selectorSchema.safeParse(doc).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    assert.match(issue({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }).join(), /matchExpressions.0.values: must list at least one value for operator In/);
    assert.match(issue({ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }).join(), /values: must list at least one value for operator NotIn/);
    assert.match(issue({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }).join(), /values: must be empty for operator Exists/);
    assert.equal(selectorSchema.safeParse({ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] }).success, false, 'operators are case-sensitive');
  });

  it('says in one line what it selects', () => {
    assert.equal(describeSelector(sel({ matchLabels: { ring: 'canary' }, matchExpressions: [{ key: 'region', operator: 'In', values: ['a', 'b'] }, { key: 'legacy', operator: 'DoesNotExist' }] })), 'ring=canary, region in (a,b), !legacy');
    assert.equal(describeSelector(sel({})), 'every cluster');
  });

  it('knows two selectors written differently for the same requirements', () => {
    assert.ok(sameSelector(sel({ matchLabels: { ring: 'canary' } }), sel({ matchExpressions: [{ key: 'ring', operator: 'In', values: ['canary'] }] })));
    assert.ok(!sameSelector(sel({ matchLabels: { ring: 'canary' } }), sel({ matchLabels: { ring: 'early' } })));
  });

  it('selects exactly when every requirement holds (property)', () => {
    const key = fc.constantFrom('env', 'ring', 'region');
    const value = fc.constantFrom('a', 'b', '');
    const req = fc.record({ key, operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist'), values: fc.array(value, { minLength: 1, maxLength: 2 }) })
      .map((r) => (r.operator === 'Exists' || r.operator === 'DoesNotExist' ? { key: r.key, operator: r.operator } : r));
    fc.assert(fc.property(fc.array(req, { maxLength: 3 }), fc.dictionary(key, value), (reqs, lbls) => {
      const s = sel({ matchExpressions: reqs });
      const each = reqs.every((r) => selects(sel({ matchExpressions: [r] }), lbls));
      assert.equal(selects(s, lbls), each);
    }));
  });
});
