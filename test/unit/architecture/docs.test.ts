// docs/architecture.md and README.md's Layout describe the tree as it is: the layer table is
// scripts/layers.mjs (which the lint rule and the import-graph test enforce), and the Layout lists
// every top-level folder and every part of shared/, and nothing that does not exist.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PARTS } from '../../../scripts/layers.mjs';
import { repoFolders } from '../../support/repoTree.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (p: string): string => readFileSync(path.join(ROOT, p), 'utf8');
/** Parts whose "may import" the document says in words (everything of the product). */
const IN_WORDS = new Set(['bench', 'scripts', 'test']);

interface Row { name: string; paths: string[]; may: string[] }

function layerRows(): Row[] {
  const doc = read('docs/architecture.md');
  const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('## Data flow'));
  return section.split('\n').filter((l) => /^\| [a-z]+ \| `/.test(l)).map((l) => {
    const cells = l.split('|').slice(1, -1).map((c) => c.trim());
    const paths = [...(cells[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const may = cells[3] === '—' ? [] : (cells[3] ?? '').split(',').map((x) => x.trim());
    return { name: cells[0] ?? '', paths, may };
  });
}

function layoutBlock(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('```\n', readme.indexOf('## Layout')) + 4;
  return readme.slice(start, readme.indexOf('```', start)).split('\n').filter((l) => l.trim() !== '');
}

describe('docs/architecture.md', () => {
  test('its layer table is scripts/layers.mjs: the same parts in the same order, with their paths and imports', () => {
    const rows = layerRows();
    assert.deepEqual(rows.map((r) => r.name), PARTS.map((p) => p.name));
    for (const part of PARTS) {
      const row = rows.find((r) => r.name === part.name)!;
      assert.deepEqual(row.paths, part.paths, `${part.name}: paths`);
      if (!IN_WORDS.has(part.name)) assert.deepEqual(row.may, part.may, `${part.name}: may import`);
    }
  });

  test('every path it cites in backquotes exists', () => {
    const cited = [...read('docs/architecture.md').matchAll(/`((?:shared|scripts|test|infra|docs|functions|bench)\/[^`\s<]*)`/g)].map((m) => m[1]!);
    assert.ok(cited.length > 20);
    assert.deepEqual(cited.filter((p) => !existsSync(path.join(ROOT, p))), []);
  });
});

describe("README.md's Layout", () => {
  const lines = layoutBlock();
  const top = lines.filter((l) => /^\S/.test(l)).map((l) => l.split(/\s+/)[0]!);
  const shared = lines.filter((l) => /^ {2}\S/.test(l)).map((l) => `shared/${l.trim().split(/\s+/)[0]!}`);

  test('lists every top-level folder of the tree, and only folders that exist', () => {
    const folders = repoFolders().map((name) => `${name}/`);
    assert.deepEqual([...top].sort(), [...folders].sort());
  });

  test('lists every folder of shared/ and every part of the layers that is a file of shared/', () => {
    const folders = readdirSync(path.join(ROOT, 'shared'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `shared/${e.name}/`);
    const partFiles = PARTS.flatMap((p) => p.paths).filter((p) => p.startsWith('shared/') && p.endsWith('.ts') && !p.startsWith('shared/json') && !p.startsWith('shared/meter'));
    for (const want of [...folders, ...partFiles]) assert.ok(shared.includes(want), `${want} is missing from the Layout`);
    for (const listed of shared) assert.ok(existsSync(path.join(ROOT, listed)), `${listed} is listed but does not exist`);
  });
});
