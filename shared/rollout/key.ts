// The one string form of a rollout key, "cluster/namespace/name": log and error text, the SQS FIFO
// message group, and the per-key unit of work of queues and coalescers. Names never contain "/"
// (cluster names are validated, namespaces and names are DNS labels/subdomains).
import type { RolloutKey } from './types.ts';

export function rolloutKeyString(key: RolloutKey): string {
  return `${key.cluster}/${key.namespace}/${key.name}`;
}
