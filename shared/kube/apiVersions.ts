// Which apiVersions are Kubernetes' own (core and apps, the groups this product touches) rather
// than custom resources: only built-in kinds take strategic merge patches; the Kruise workloads are
// custom resources, whose REST resources their drivers declare (shared/adapters/kubernetes/kinds.ts).

export function isBuiltInApiVersion(apiVersion: string): boolean {
  return !apiVersion.includes('/') || apiVersion.startsWith('apps/');
}
