// The pod-template change a release command asks for, as one write for every workload kind.
// Built-in kinds take a strategic merge patch (containers merge by name, so only the named images
// change). The apiserver refuses strategic merge patches for custom resources (the Kruise kinds),
// so an image change there is a JSON patch that replaces each named container's image at its index,
// each replace preceded by a test that the index still holds that container; a templatePatch (a
// strategic merge patch by definition) cannot be sent to them (the API refuses it: shared/api/commandRoutes.ts).
import { isBuiltInApiVersion } from '../../kube/apiVersions.ts';
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { TemplateChange } from '../../rollout/types.ts';
import { isRecord } from '../../json.ts';
import { TEMPLATE_CHANGE_REASON } from '../driver.ts';
import { mergePatchDiff } from './mergePatch.ts';
import { objectRef, templateOf } from './objects.ts';

/** Kubernetes applies strategic merge patches to its built-in types only. */
export const takesStrategicMerge = isBuiltInApiVersion;

/**
 * No resourceVersion: the patch is idempotent and must not lose to the hold patch the driver sends
 * just before it.
 */
export function templateChangeWrite(workload: KubeObject, change: TemplateChange, storedTemplate: (revision: string) => unknown = () => null): KubeWrite {
  const target = objectRef(workload);
  const reason = TEMPLATE_CHANGE_REASON;
  if (change.type === 'revision') {
    // A retained revision's stored template, as a merge patch from the live one (a restore-template,
    // but held like any release's change). The planner asks only for a revision the view retains;
    // were it gone meanwhile, the patch changes nothing and the next pass starts no release.
    const stored = storedTemplate(change.revision);
    const diff = isRecord(stored) ? mergePatchDiff(templateOf(workload), stored) : undefined;
    return { verb: 'patch', ref: target, patchType: 'merge', patch: { spec: diff === undefined ? {} : { template: diff } }, reason };
  }
  if (!takesStrategicMerge(workload.apiVersion) && change.type === 'images') {
    return { verb: 'patch', ref: target, patchType: 'json', patch: imageOps(workload, change.images), reason };
  }
  const patch =
    change.type === 'images'
      ? { spec: { template: { spec: { containers: Object.entries(change.images).map(([name, image]) => ({ name, image })) } } } }
      : { spec: { template: change.patch } };
  return { verb: 'patch', ref: target, patchType: 'strategic', patch, reason };
}

function imageOps(workload: KubeObject, images: Record<string, string>): unknown[] {
  const podSpec = templateOf(workload).spec;
  const containers = isRecord(podSpec) && Array.isArray(podSpec.containers) ? podSpec.containers : [];
  const ops: unknown[] = [];
  containers.forEach((c, i) => {
    const name = isRecord(c) ? c.name : undefined;
    if (typeof name !== 'string' || !(name in images)) return;
    ops.push({ op: 'test', path: `/spec/template/spec/containers/${i}/name`, value: name });
    ops.push({ op: 'replace', path: `/spec/template/spec/containers/${i}/image`, value: images[name] });
  });
  return ops;
}
