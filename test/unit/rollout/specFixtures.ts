// Rollout documents for the spec tests: a valid base, and a way to break one field at a time.
import assert from 'node:assert/strict';
import { ValidationError, type FieldIssue } from '../../../shared/errors.ts';
import { KRUISE_API_VERSION, parseRollout, ROLLOUTS_API_VERSION } from '../../../shared/rollout/spec.ts';

export type Doc = Record<string, unknown> & {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown> & {
    workloadRef: Record<string, unknown>;
    strategy: Record<string, unknown> & { canary: Record<string, unknown> & { steps: Record<string, unknown>[] } };
  };
};

export function kruiseDoc(): Doc {
  return {
    apiVersion: KRUISE_API_VERSION,
    kind: 'Rollout',
    metadata: { name: 'web' },
    spec: {
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      strategy: {
        canary: {
          steps: [{ replicas: 1, pause: {} }, { replicas: '50%', pause: { duration: 60 } }, { replicas: '100%' }],
        },
      },
    },
  };
}

export function ourDoc(): Doc {
  const doc = kruiseDoc();
  doc.apiVersion = ROLLOUTS_API_VERSION;
  return doc;
}

/** A copy of `base` changed by `edit` (so each case starts from a clean document). */
export function edited(base: () => Doc, edit: (d: Doc) => void): Doc {
  const d = base();
  edit(d);
  return d;
}

export const releaseWindow = (over: Record<string, unknown> = {}) => ({
  days: ['Mon', 'Tue'], start: '09:00', end: '17:00', timeZone: 'Europe/Paris', ...over,
});

/** The issues parseRollout reports for `doc` (fails the test when the document is accepted). */
export function issuesOf(doc: unknown, ctx = { cluster: 'c' }): FieldIssue[] {
  try {
    parseRollout(doc, ctx);
  } catch (err) {
    assert.ok(err instanceof ValidationError, `expected a ValidationError, got ${String(err)}`);
    return err.issues;
  }
  return assert.fail('the document was accepted');
}
