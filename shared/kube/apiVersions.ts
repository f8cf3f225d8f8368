// Which apiVersions are Kubernetes' own (core and apps, the groups this product touches) rather
// than custom resources: only built-in kinds take strategic merge patches, and only they have typed
// client bindings (shared/adapters/kubernetes/kinds.ts); the Kruise workloads are custom resources.

export function isBuiltInApiVersion(apiVersion: string): boolean {
  return !apiVersion.includes('/') || apiVersion.startsWith('apps/');
}
