// What kubectl sends for the commands the "reconciler absent" scenarios run, sent with the admin
// client: the same request (path, patch type, body, field manager) kubectl makes, without a kubectl
// binary. From kubernetes/kubectl pkg/cmd/rollout/rollout_resume.go and pkg/cmd/set/set_image.go
// (a strategic merge patch computed by set.CalculatePatches), and pkg/cmd/scale (the scale subresource).
import { AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';

const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class Kubectl {
  private readonly apps: AppsV1Api;

  constructor(admin: KubeConfig, private readonly namespace: string) {
    this.apps = admin.makeApiClient(AppsV1Api);
  }

  /**
   * `kubectl rollout resume deployment/NAME`: `{"spec":{"paused":null}}` (paused false is omitted,
   * so the two-way patch nulls it). kubectl only sends it for a paused Deployment ("is not paused"
   * otherwise); a GitOps tool may send the same to an unpaused one, which is what this does.
   */
  async rolloutResume(name: string): Promise<void> {
    await this.apps.patchNamespacedDeployment({ name, namespace: this.namespace, body: { spec: { paused: null } }, fieldManager: 'kubectl-rollout' }, strategic);
  }

  /** `kubectl set image deployment/NAME CONTAINER=IMAGE`. */
  async setImage(name: string, container: string, image: string): Promise<void> {
    const body = { spec: { template: { spec: { containers: [{ name: container, image }] } } } };
    await this.apps.patchNamespacedDeployment({ name, namespace: this.namespace, body, fieldManager: 'kubectl-set' }, strategic);
  }

  /** `kubectl scale deployment/NAME --replicas=N`: a merge patch of the scale subresource. */
  async scale(name: string, replicas: number): Promise<void> {
    await this.apps.patchNamespacedDeploymentScale({ name, namespace: this.namespace, body: { spec: { replicas } }, fieldManager: 'kubectl-scale' }, merge);
  }

  /** `kubectl patch deployment NAME --type merge -p PATCH`. */
  async patchMerge(name: string, patch: Record<string, unknown>): Promise<void> {
    await this.apps.patchNamespacedDeployment({ name, namespace: this.namespace, body: patch, fieldManager: 'kubectl-patch' }, merge);
  }
}
