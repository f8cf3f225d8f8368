import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { imageReferenceProblem } from '../../../shared/rollout/imageReference.ts';

describe('image references (distribution/reference grammar)', () => {
  for (const ok of ['nginx', 'nginx:1.28', 'library/nginx:latest', 'registry.invalid/app:v1', 'localhost:5000/a/b_c__d-e:1.0-rc.1', 'ghcr.io/org/app@sha256:' + 'a'.repeat(64), 'app:v1@sha256:' + 'b'.repeat(64), '[::1]:5000/app', 'a--b/c.d']) {
    it(`accepts ${ok.slice(0, 60)}`, () => assert.equal(imageReferenceProblem(ok), null));
  }
  for (const bad of ['NGINX:@@bad', 'Nginx', 'nginx:', 'nginx:-tag', ':tag', 'app@sha256:short', 'a/', '/a', 'a//b', 'a b', 'app:' + 'x'.repeat(129), `${'a'.repeat(256)}:1`, 'a___b', 'é:1']) {
    it(`refuses ${JSON.stringify(bad.slice(0, 40))}`, () => assert.notEqual(imageReferenceProblem(bad), null));
  }
  it('says when the repository is not lowercase', () => assert.match(imageReferenceProblem('NGINX:1') ?? '', /lowercase/));
});
