// The product's documented RBAC (infra/k8s/rollouts-rbac.yaml) as data, for tests that compare it
// with what the registry's drivers declare (shared/workloads/rbac.ts).
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { ResourceAccess } from '../../shared/workloads/driver.ts';

export interface RbacRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export interface RbacDocument {
  kind: string;
  metadata: { name: string };
  rules: RbacRule[];
  roleRef: { name: string };
  subjects: unknown[];
}

export const RBAC_MANIFEST = new URL('../../infra/k8s/rollouts-rbac.yaml', import.meta.url);

export function rbacDocuments(): RbacDocument[] {
  return parseAllDocuments(readFileSync(RBAC_MANIFEST, 'utf8')).map((d) => d.toJS() as RbacDocument).filter((d) => d !== null);
}

export function clusterRole(name: string): RbacDocument {
  const role = rbacDocuments().find((d) => d.kind === 'ClusterRole' && d.metadata.name === name);
  if (!role) throw new Error(`rollouts-rbac.yaml has no ClusterRole ${name}`);
  return role;
}

/** "group/resource verb" for every permission a role's rules grant, sorted. */
export function grantsOfRules(rules: readonly RbacRule[]): string[] {
  return rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}/${res} ${v}`)))).sort();
}

/** The same for declared accesses (the drivers'). */
export function grantsOfAccess(access: readonly ResourceAccess[]): string[] {
  return access.flatMap((a) => a.verbs.map((v) => `${a.apiGroup}/${a.resource} ${v}`)).sort();
}
