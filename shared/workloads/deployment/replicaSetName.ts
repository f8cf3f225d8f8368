// The name of the ReplicaSet the Partition strategy creates for a new revision: the native
// controller's shape, `<deployment>-<hash>`, with our revision id as the hash (revision.ts). Shared by
// the create and by observe, which reads that name first so a foreign object holding it shows up as
// a problem instead of an endless AlreadyExists.
import type { KubeObject } from '../../kube/types.ts';

export function newReplicaSetName(d: KubeObject, owned: KubeObject[], hash: string): string {
  let name = `${d.metadata.name}-${hash}`;
  for (let n = 1; owned.some((rs) => rs.metadata.name === name); n += 1) name = `${d.metadata.name}-${hash}-${n}`;
  return name;
}
