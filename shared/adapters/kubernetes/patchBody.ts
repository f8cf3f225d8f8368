// Pure helpers that turn a KubeWrite patch into the request the apiserver needs: the content type
// (client-node would otherwise send every PATCH as JSON Patch) and the optimistic-concurrency guard.
import type { PatchType } from '../../kube/types.ts';
import { ValidationError } from '../../errors.ts';

export const PATCH_CONTENT_TYPE: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

/**
 * The patch body, guarded by `resourceVersion` when given, so that a writer who changed the object
 * since we read it makes the apiserver answer 409 instead of our patch silently winning.
 *
 * - merge / strategic: `metadata.resourceVersion` in the body. The apiserver applies the patch to
 *   the current object, then its storage refuses the update because the resulting resourceVersion
 *   differs from the stored one (409 Conflict, "the object has been modified").
 * - json: the same precondition, as a first op that sets `/metadata/resourceVersion`. Not a `test`
 *   op: a failed test is a 422 "the server rejected our request" that cannot be told apart from a
 *   malformed patch, while this fails in storage with the same 409 as the merge patches
 *   (checked against kube-apiserver 1.34 in test/integration/kube-client.test.ts).
 */
export function guardedPatchBody(patchType: PatchType, patch: unknown, resourceVersion?: string): unknown {
  if (patchType === 'json') {
    if (!Array.isArray(patch)) {
      throw new ValidationError([{ path: 'patch', reason: 'a JSON patch must be an array of operations' }]);
    }
    if (resourceVersion === undefined) return patch;
    return [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }, ...patch];
  }
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new ValidationError([{ path: 'patch', reason: `a ${patchType} patch must be a JSON object` }]);
  }
  if (resourceVersion === undefined) return patch;
  const body = patch as { metadata?: Record<string, unknown> };
  return { ...body, metadata: { ...body.metadata, resourceVersion } };
}
