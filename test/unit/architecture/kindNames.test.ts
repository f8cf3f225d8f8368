// The driver owns its kind: outside shared/workloads/<kind>/ the core, the reconcile, the API and
// the composition roots never name a workload kind as a string literal (no `kind === 'Deployment'`,
// no list of kinds of their own). They read a kind's capabilities from the table generated from the
// registry (shared/rollout/workloadKinds.generated.ts, the one file allowed to name them). Prose
// that mentions a kind inside a longer message is not a kind name and is not matched.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WORKLOAD_KINDS, WORKLOAD_TYPES } from '../../../shared/rollout/workloadKinds.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const AREAS = ['shared/rollout', 'shared/reconcile', 'shared/api', 'shared/app'];
const GENERATED = 'shared/rollout/workloadKinds.generated.ts';

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [rel] : [];
  });
}

/** The product's kind names and the Kubernetes kinds they stand for. */
const NAMES = [...new Set(WORKLOAD_KINDS.flatMap((k) => [k, WORKLOAD_TYPES[k].kind]))];
/** A quoted literal that is exactly one of the names: 'Deployment', "CloneSet", `DaemonSet`. */
const LITERAL = new RegExp(`(['"\`])(${NAMES.join('|')})\\1`, 'g');

/** Literals of a kind name in `text`, with their line numbers. */
function kindLiterals(text: string): string[] {
  return text.split('\n').flatMap((line, i) => [...line.matchAll(LITERAL)].map((m) => `${i + 1}: ${m[0]}`));
}

describe('workload kind names outside the drivers', () => {
  test('the check sees a kind name compared as a literal, and not a kind named in prose', () => {
    assert.deepEqual(kindLiterals("if (kind === 'Deployment') return;\nconst x = \"CloneSet\";"), ["1: 'Deployment'", '2: "CloneSet"']);
    assert.deepEqual(kindLiterals("reason: 'applies to the canary Deployment only'"), []);
  });

  test(`no file of ${AREAS.join(', ')} names a workload kind as a string literal, apart from the generated kind table`, () => {
    const files = AREAS.flatMap(sources).filter((f) => f !== GENERATED);
    assert.ok(files.length > 50, `only ${files.length} files read`);
    const found = files.flatMap((f) => kindLiterals(readFileSync(path.join(ROOT, f), 'utf8')).map((hit) => `${f}:${hit}`));
    assert.deepEqual(found, [], 'read the capability from workloadTypeOf(kind) (shared/rollout/workloadKinds.ts), or move the code into the driver');
    assert.ok(kindLiterals(readFileSync(path.join(ROOT, GENERATED), 'utf8')).length >= WORKLOAD_KINDS.length, 'the generated table names them');
  });
});
