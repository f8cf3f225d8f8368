// Comments cite only what a reader of this repository can open: every repo path a comment names
// exists, and no comment points at documents that live outside the repo (a design document by
// section, notes beside the checkout). Upstream sources are cited by project and name instead
// (Kruise's `CalculateBatchReplicas`, Kubernetes' `IsPodAvailable`), or as `owner/repo:path`.
// What the benchmarks write (bench/results/, not kept in git) is output, not a citation.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const AREAS = ['shared', 'functions', 'infra', 'bin', 'bench', 'scripts', 'test'];
const EXTENSIONS = /\.(ts|mts|js|mjs|sh|yaml|yml)$/;

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'results' ? [] : sources(rel);
    return EXTENSIONS.test(e.name) ? [rel] : [];
  });
}

/** The comment text of each line: whole-line comments (//, /* *, #) and what follows " // " on a line of code. */
function commentsOf(text: string, file: string): { line: number; text: string }[] {
  const hash = /\.(sh|yaml|yml)$/.test(file);
  return text.split('\n').flatMap((raw, i) => {
    const t = raw.trim();
    if (/^(\/\/|\/\*|\*)/.test(t) || (hash && t.startsWith('#'))) return [{ line: i + 1, text: t }];
    const at = raw.indexOf(' // ');
    return at >= 0 ? [{ line: i + 1, text: raw.slice(at + 4) }] : [];
  });
}

/** Documents outside the repository, cited by name or by path. */
const OUTSIDE = /DESIGN §|k8s-semantics|\.\.\/shared\/|\/work\/|(^|[\s(])reference\/[\w-]+\.md/;
/** A path from the repository's root: a top-level folder, then a file with an extension or a folder. */
const REPO_PATH = /(?<![\w./:-])(?:shared|functions|infra|bin|bench|scripts|test|docs|examples|schemas)\/[\w.-]+(?:\/[\w.-]+)*(?:\.\w+|\/)/g;

function problemsOf(file: string, text: string, exists: (p: string) => boolean): string[] {
  return commentsOf(text, file).flatMap(({ line, text: comment }) => {
    const found: string[] = [];
    if (OUTSIDE.test(comment)) found.push(`${file}:${line}: cites a document outside the repo: ${comment}`);
    for (const m of comment.matchAll(REPO_PATH)) {
      const cited = m[0].replace(/[.]$/, '');
      if (!cited.startsWith('bench/results/') && !exists(cited)) found.push(`${file}:${line}: cites ${cited}, which does not exist`);
    }
    return found;
  });
}

describe('citations in comments', () => {
  test('the check finds a missing path and a document outside the repo, and passes what exists', () => {
    const exists = (p: string): boolean => p === 'shared/ports.ts' || p === 'shared/rollout/';
    const trailing = ['const x = 1;', '/' + '/', 'shared/gone.ts'].join(' ');
    assert.deepEqual(problemsOf('a.ts', `// see shared/ports.ts and shared/rollout/\n${trailing}`, exists), ['a.ts:2: cites shared/gone.ts, which does not exist']);
    assert.deepEqual(problemsOf('a.ts', '// as openkruise/rollouts:test/e2e/x.yaml does', exists), []);
    assert.equal(problemsOf('a.ts', '// the layout (DESIGN §4)', exists).length, 1);
    assert.equal(problemsOf('b.sh', '# see ../shared/reference/k8s-testplane.md', exists).length, 1);
    assert.deepEqual(problemsOf('a.ts', "const u = 'https://example.com/shared/x.ts';", exists), []);
  });

  test('every repo path a comment cites exists, and none cites a document outside the repo', () => {
    const files = AREAS.flatMap(sources);
    assert.ok(files.length > 300, `only ${files.length} files read`);
    const exists = (p: string): boolean => existsSync(path.join(ROOT, p));
    const problems = files.flatMap((f) => problemsOf(f, readFileSync(path.join(ROOT, f), 'utf8'), exists));
    assert.deepEqual(problems, []);
  });
});
