// The import graph of the product as a whole, read with TypeScript's own pre-processor (static,
// type-only and dynamic imports alike): no cycle between modules, and every arrow pointing down the
// layers of docs/architecture.md as scripts/layers.mjs lists them (the lint rule layers/downward
// checks each import as it is written; this checks the whole graph, and what lint does not read).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { arrowProblem, partOf } from '../../../scripts/layers.mjs';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const AREAS = ['shared', 'functions', 'infra', 'bin', 'bench', 'scripts'];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'results' ? [] : sources(rel);
    return /\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Repo-relative module → the repo-relative modules it imports (relative specifiers only: packages are not ours). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of AREAS.flatMap(sources)) {
    const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

describe('the import graph', () => {
  const graph = importGraph();

  test('is read whole: every relative import names a file that exists', () => {
    assert.ok(graph.size > 250, `only ${graph.size} modules read`);
    const dangling = [...graph].flatMap(([from, tos]) => tos.filter((to) => !existsSync(path.join(ROOT, to))).map((to) => `${from} → ${to}`));
    assert.deepEqual(dangling, []);
  });

  test('has no cycle between modules', () => {
    assert.deepEqual(cycles(graph), []);
  });

  test('every arrow points down the layers: adapters never import a service or a root, nothing in the product imports test/, bench/ and scripts/ do not either', () => {
    const upward = [...graph].flatMap(([from, tos]) => tos.map((to) => arrowProblem(from, to)).filter((p): p is string => p !== null));
    assert.deepEqual(upward, []);
  });

  test('every module of the product belongs to a layer', () => {
    assert.deepEqual([...graph.keys()].filter((f) => partOf(f) === null), []);
  });

  test('the rule refuses what it must (an adapter importing a composition root, the core importing a driver, a benchmark importing test support)', () => {
    assert.notEqual(arrowProblem('shared/adapters/dynamodb/watcherLease.ts', 'shared/app/lambdaDeps.ts'), null);
    assert.notEqual(arrowProblem('shared/rollout/plan.ts', 'shared/workloads/registry.ts'), null);
    assert.notEqual(arrowProblem('bench/run.ts', 'test/support/rbac.ts'), null);
    assert.notEqual(arrowProblem('shared/api/commandRoutes.ts', 'shared/adapters/dynamodb/rules.ts'), null);
    assert.equal(arrowProblem('shared/app/lambdaDeps.ts', 'shared/adapters/dynamodb/stateStore.ts'), null);
    assert.deepEqual(cycles(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']], ['c.ts', ['a.ts']]])), [['a.ts', 'b.ts']]);
  });
});
