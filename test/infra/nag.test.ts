// cdk-nag (AwsSolutions, v3 plugin API) over the whole app: nothing unacknowledged, and every
// acknowledgement is needed and says specifically why.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { FULL_CONTEXT, synth } from '../../infra/synth.ts';

interface Acknowledgement {
  path: string;
  id: string;
  reason: string;
}

function acknowledgements(root: IConstruct): Acknowledgement[] {
  return root.node.findAll().flatMap((c) => c.node.metadata
    .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
      path: c.node.path,
      id: id.replace(/^annotation::/i, ''),
      reason,
    }))));
}

function findings(root: IConstruct): string[] {
  return new AwsSolutionsChecks().validateScope(root).violations
    .flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));
}

const GENERIC = /^(n\/?a|none|todo|tbd|ok|fine|ignore|ignored|suppressed|not needed|not applicable|false positive|by design|accepted|known)\.?$/i;

describe('cdk-nag AwsSolutions', () => {
  for (const [label, context] of [
    ['the default deployment', {}],
    ['a deployment with clusters, a cross-account role and alarm e-mail', FULL_CONTEXT],
    ['a deployment without the watch-proxy', { ...FULL_CONTEXT, watchProxyMode: 'none' }],
  ] as const) {
    it(`finds nothing unacknowledged in ${label}`, () => {
      const { app } = synth(context);
      assert.deepEqual(findings(app), []);
    });
  }

  it('gives every acknowledgement a specific reason', () => {
    const acks = acknowledgements(synth(FULL_CONTEXT).app);
    assert.ok(acks.length > 0);
    for (const a of acks) {
      assert.match(a.id, /^AwsSolutions-[A-Z]+\d+(\[.+\])?$/, `${a.path}: ${a.id}`);
      assert.ok(a.reason.trim().length >= 60, `${a.path} ${a.id}: reason too short to say why: "${a.reason}"`);
      assert.doesNotMatch(a.reason.trim(), GENERIC, `${a.path} ${a.id}: generic reason`);
    }
  });

  it('acknowledges only findings that exist: without the acknowledgements, exactly those rules fire', () => {
    // Record instead of acknowledging while the stack is built, then check each recorded id fires
    // at (or under) the construct that acknowledged it, and that nothing else fires.
    const recorded: Acknowledgement[] = [];
    const original = Validations.prototype.acknowledge;
    Validations.prototype.acknowledge = function (this: Validations, ...rules) {
      const scope = (this as unknown as { scope: IConstruct }).scope;
      for (const r of rules) recorded.push({ path: scope.node.path, id: r.id, reason: r.reason });
    };
    let raw: string[];
    try {
      raw = findings(synth(FULL_CONTEXT).app);
    } finally {
      Validations.prototype.acknowledge = original;
    }
    for (const a of recorded) {
      assert.ok(raw.some((f) => f.startsWith(`${a.id} at ${a.path}/`)), `${a.id} at ${a.path} acknowledges nothing`);
    }
    const unexplained = raw.filter((f) => !recorded.some((a) => f.startsWith(`${a.id} at ${a.path}/`)));
    assert.deepEqual(unexplained, []);
  });
});
