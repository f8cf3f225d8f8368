// The hook and gate examples (examples/hooks-and-gates/) are valid Rollouts, and every URL they call
// is one their local server (hook-server.mjs) answers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../../shared/cli/main.ts';
import type { CliIO } from '../../../shared/cli/io.ts';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples/hooks-and-gates');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).map((f) => path.join(DIR, f));

async function validate(file: string): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIO = { out: (t) => void (out += t), err: (t) => void (out += t), readFile: async (p) => readFileSync(p, 'utf8') };
  return { code: await run(['validate', '-f', file], io), out };
}

describe('examples/hooks-and-gates', () => {
  test('has a Rollout with a hook and one with gates, each valid', async () => {
    assert.deepEqual(FILES.map((f) => path.basename(f)).sort(), ['rollout-gates.yaml', 'rollout-hook.yaml']);
    for (const file of FILES) {
      const r = await validate(file);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /^OK /);
    }
  });

  test('every URL the Rollouts call is a route of hook-server.mjs on its default port', () => {
    const server = readFileSync(path.join(DIR, 'hook-server.mjs'), 'utf8');
    const port = /process\.env\.PORT \?\? (\d+)/.exec(server)?.[1];
    const routes = [...server.matchAll(/^ {2}'(\/[^']+)': /gm)].map((m) => m[1]);
    assert.ok(routes.length >= 3, routes.join(', '));
    for (const file of FILES) {
      for (const [url] of readFileSync(file, 'utf8').matchAll(/http:\/\/127\.0\.0\.1:\d+\/\S+/g)) {
        const u = new URL(url);
        assert.equal(u.port, port, `${url} in ${file}`);
        assert.ok(routes.includes(u.pathname), `${url} in ${path.basename(file)} is a route of hook-server.mjs`);
      }
    }
  });
});
