// The folders of the repository as git sees them: tracked files plus new ones not ignored. A test
// that reads the disk instead would count what other tests write there (cdk.out/ from a synth,
// .rollouts/ from local mode), which .gitignore keeps out of the repository.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The sorted names of the folders directly under `dir` (relative to the repository root). */
export function repoFolders(dir = '.'): string[] {
  const prefix = dir === '.' ? '' : `${dir.replace(/\/$/, '')}/`;
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', prefix || '.'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.startsWith(prefix) && existsInTree(f));
  const names = new Set(files.map((f) => f.slice(prefix.length)).filter((rest) => rest.includes('/')).map((rest) => rest.split('/')[0]!));
  return [...names].filter((n) => !n.startsWith('.')).sort();
}

/** Git's index still lists a file deleted from the work tree until the deletion is staged. */
function existsInTree(file: string): boolean {
  return file.length > 0 && existsSync(path.join(REPO_ROOT, file));
}
