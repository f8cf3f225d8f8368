// Commands checked against the live workload before they are accepted (issue 13): what `kubectl
// set image` and `kubectl rollout undo` would refuse is refused here, with the field and the reason,
// and nothing is recorded. The template change itself is sent to the apiserver as a server-side
// dry-run (dryRun=All: it runs validation and admission and stores nothing). Local mode's API uses
// the product's own user, which may patch workloads, so the dry-run runs there (as for a cluster
// registered by endpoint, whose one token every function uses); the deployed API reaches an EKS
// cluster as serverless-rollouts-view (infra/k8s/rollouts-rbac.yaml: get/list only), so the
// apiserver refuses its dry-run (403) and that check is skipped. An API without cluster access
// skips what it cannot check too: the reconcile then fails such a release with the apiserver's
// reason instead (shared/reconcile/reconcile.ts), so nothing ever wedges.
import { ForbiddenError, KindNotServedError, NotFoundError, TransientError, ValidationError } from '../errors.ts';
import type { KubeObject } from '../kube/types.ts';
import type { ClusterClient } from '../ports.ts';
import type { CommandBody, ReleaseState, RolloutKey, WorkloadRef } from '../rollout/types.ts';
import { undoTarget } from '../rollout/undo.ts';
import { canonicalJson, images } from '../workloads/common/objects.ts';
import { driverFor } from '../workloads/registry.ts';
import { HttpError, unprocessable } from './httpError.ts';
import type { ApiDeps, UndoPreview } from './types.ts';
import { rolloutKeyString } from '../rollout/key.ts';

/**
 * Throws the 4xx a command deserves given the live workload; returns when it may be recorded, with
 * an undo's target and move when the workload could be read (null otherwise).
 */
export async function checkAgainstLiveWorkload(deps: ApiDeps, key: RolloutKey, ref: WorkloadRef, body: CommandBody, state: ReleaseState): Promise<UndoPreview | null> {
  if (body.type !== 'release' && body.type !== 'undo') return null;
  const driver = driverFor(ref.kind);
  if (!deps.clusters) return null;
  let client: ClusterClient;
  let workload: KubeObject | null;
  try {
    client = await deps.clusters.client(key.cluster);
    workload = await client.get({ apiVersion: ref.apiVersion, kind: ref.kind, namespace: key.namespace, name: ref.name });
  } catch (err) {
    if (err instanceof TransientError) throw err;
    // The kind's CRD is not installed (e.g. OpenKruise for a CloneSet): no release could ever start.
    if (err instanceof KindNotServedError) throw unprocessable([{ path: 'spec.workloadRef', reason: `${ref.apiVersion} ${ref.kind} is not served by cluster "${key.cluster}": the CRD that defines it is not installed` }], err, 'command refused');
    return null; // no read access here: the reconcile decides
  }
  if (!workload) throw new NotFoundError(`${ref.kind} ${key.namespace}/${ref.name} does not exist in cluster "${key.cluster}"`);
  const template = driver.podTemplate(workload);

  if (body.type === 'undo') {
    // The planner decides the same way from the same facts (shared/rollout/commands.ts).
    const view = driver.view(await driver.observe(client, key.namespace, ref, deps.clock.now()));
    const target = undoTarget(state, view, body.toRevision);
    if (typeof target === 'string') {
      if (body.toRevision !== undefined) throw conflict('toRevision', target.replace(/^toRevision: /, '').replace(/is not retained/, `is not retained by ${ref.kind} ${key.namespace}/${ref.name}`));
      throw new HttpError(409, `undo ${rolloutKeyString(key)}: ${target}`);
    }
    return { revision: target.revision.number, images: target.revision.images, move: target.move };
  }

  const change = body.change;
  if (change.type === 'revision') return null; // the planner's own, never a client's
  if (change.type === 'images') {
    const live = images(template);
    const unknown = Object.keys(change.images).filter((c) => !(c in live));
    if (unknown.length > 0) {
      throw unprocessable(unknown.map((c) => ({ path: `images.${c}`, reason: `no container "${c}" in ${ref.kind} ${key.namespace}/${ref.name} (containers: ${Object.keys(live).join(', ') || 'none'})` })), undefined, 'command refused');
    }
    if (Object.entries(change.images).every(([c, img]) => live[c] === img)) {
      const issues = Object.entries(change.images).map(([c, img]) => ({ path: `images.${c}`, reason: `nothing to release: container ${c} already runs ${img}` }));
      throw new HttpError(409, issues.map((i) => i.reason).join('; '), { issues });
    }
  }
  let result: KubeObject | null;
  try {
    result = await client.write({ ...driver.templateChange(workload, change), dryRun: true } as Parameters<ClusterClient['write']>[0]);
  } catch (err) {
    if (err instanceof ValidationError) {
      throw unprocessable([{ path: change.type === 'images' ? 'images' : 'templatePatch', reason: `the apiserver refuses the change (dry-run): ${err.message}` }], err, 'command refused');
    }
    if (err instanceof ForbiddenError) return null; // no dry-run grant: the reconcile reports a refusal as a failed release
    throw err;
  }
  if (result && canonicalJson(driver.podTemplate(result)) === canonicalJson(template)) {
    throw conflict(change.type === 'images' ? 'images' : 'templatePatch', 'nothing to release: the change leaves the pod template as it is');
  }
  return null;
}

/** 409 about one field of the command. */
function conflict(path: string, reason: string): HttpError {
  return new HttpError(409, `${path}: ${reason}`, { issues: [{ path, reason }] });
}
