// The README says what the repository holds: its Layout names every top-level folder (and every
// folder of shared/ and shared/adapters/), and no "Not yet" line names a feature that exists.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoFolders } from '../support/repoTree.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The fenced block of the "## Layout" section. */
function layoutBlock(): string {
  const section = /^## Layout\n([\s\S]*?)^## /m.exec(README)?.[1];
  assert.ok(section, 'README.md has a "## Layout" section');
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the Layout section has a fenced block');
  return block;
}

const folders = repoFolders;

/** Folders the block does not name as `<name>/` (at a line's start, or in the text after it). */
function unnamed(block: string, names: string[], where: RegExp | ((name: string) => RegExp)): string[] {
  return names.filter((n) => !(typeof where === 'function' ? where(n) : where).test(block));
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Features whose "Not yet" would be false, each with the file that implements it (so the list
 * itself cannot claim a feature that is gone).
 */
const FEATURES: readonly { feature: string; words: RegExp; file: string }[] = [
  { feature: 'pod hooks', words: /hook|preUpdate|postUpdate/i, file: 'shared/rollout/hooks.ts' },
  { feature: 'step gates', words: /\bgates?\b|analysis/i, file: 'shared/rollout/gates.ts' },
  { feature: 'the dashboard', words: /dashboard/i, file: 'shared/dashboard/server.ts' },
  { feature: 'undo', words: /\bundo\b/i, file: 'shared/cli/commands/undo.ts' },
  { feature: 'release windows', words: /release windows?/i, file: 'shared/rollout/windows.ts' },
  { feature: 'StatefulSets', words: /statefulset/i, file: 'shared/workloads/statefulset' },
  { feature: 'DaemonSets', words: /daemonset/i, file: 'shared/workloads/daemonset' },
  { feature: 'CloneSets', words: /cloneset/i, file: 'shared/workloads/cloneset' },
];

describe('the README', () => {
  it('Layout names every top-level folder of the repository', () => {
    const block = layoutBlock();
    assert.deepEqual(unnamed(block, folders('.'), (n) => new RegExp(`^${escape(n)}/`, 'm')), []);
  });

  it('Layout names every top-level folder of shared/ and of shared/adapters/', () => {
    const block = layoutBlock();
    assert.deepEqual(unnamed(block, folders('shared'), (n) => new RegExp(`^ {2}${escape(n)}/`, 'm')), []);
    assert.deepEqual(unnamed(block, folders('shared/adapters'), (n) => new RegExp(`(^ {2}adapters/|^ {18})[^\\n]*\\b${escape(n)}/`, 'm')), []);
  });

  it('no "Not yet" line names a feature that exists', () => {
    for (const f of FEATURES) assert.ok(existsSync(path.join(ROOT, f.file)), `${f.feature}: ${f.file} exists`);
    const notYet = README.split('\n').filter((l) => /not yet\s*:|not yet supported|not yet implemented/i.test(l));
    const wrong = notYet.flatMap((line) => FEATURES.filter((f) => f.words.test(line)).map((f) => `${f.feature}: ${line.trim()}`));
    assert.deepEqual(wrong, []);
  });
});
