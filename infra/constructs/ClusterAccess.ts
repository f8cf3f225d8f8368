// What the controller's roles need to reach the listed clusters: IAM (DescribeCluster for EKS,
// GetSecretValue on the token secret of a cluster registered by endpoint, or AssumeRole for clusters
// reached through another role), each on exactly the listed resources, and an EKS access entry per
// role that maps it to one of the Kubernetes groups bound by infra/k8s/rollouts-rbac.yaml
// (eks-auth.md §4): the write group for the functions that move releases, the read-only group for the API.
import { Annotations, Stack } from 'aws-cdk-lib';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ClusterParameter } from '../parameters.ts';

/** The group infra/k8s/rollouts-rbac.yaml binds to the ClusterRole that moves releases (patch, create, delete). */
export const KUBERNETES_GROUP = 'serverless-rollouts';
/** The group infra/k8s/rollouts-rbac.yaml binds to the read-only ClusterRole of the API's workload route. */
export const KUBERNETES_VIEW_GROUP = 'serverless-rollouts-view';
export type KubernetesGroup = typeof KUBERNETES_GROUP | typeof KUBERNETES_VIEW_GROUP;

export interface ClusterPrincipal {
  /** Short name used in construct ids (reconcile, watch-proxy, api). */
  readonly name: string;
  readonly role: IRole;
  /** The Kubernetes group its access entries map to; each principal states its own, so none gets more by default. */
  readonly kubernetesGroup: KubernetesGroup;
}

export interface ClusterAccessProps {
  readonly clusters: readonly ClusterParameter[];
  /** The roles that talk to Kubernetes. */
  readonly principals: readonly ClusterPrincipal[];
}

export class ClusterAccess extends Construct {
  readonly accessEntries: CfnAccessEntry[] = [];

  constructor(scope: Construct, id: string, props: ClusterAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Clusters reached with a role of their own: DescribeCluster and the token (or the token secret
    // read) are signed with that role's credentials, so our roles only need to assume it, and the
    // access entry belongs to it.
    const assumed = props.clusters.filter((c) => c.roleArn !== undefined);
    const direct = props.clusters.filter((c): c is ClusterParameter & { eksClusterName: string } => c.roleArn === undefined && c.eksClusterName !== undefined);
    const secrets = props.clusters.filter((c) => c.roleArn === undefined && c.tokenSecretArn !== undefined).map((c) => c.tokenSecretArn as string);

    const statements: PolicyStatement[] = [];
    if (direct.length > 0) {
      statements.push(new PolicyStatement({
        actions: ['eks:DescribeCluster'],
        resources: direct.map((c) => stack.formatArn({ service: 'eks', region: c.region ?? stack.region, resource: 'cluster', resourceName: c.eksClusterName })),
      }));
    }
    if (secrets.length > 0) {
      // The full ARNs (with their suffix), never a pattern: a secret of the same name made later is not readable.
      statements.push(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [...new Set(secrets)] }));
    }
    if (assumed.length > 0) {
      statements.push(new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [...new Set(assumed.map((c) => c.roleArn as string))] }));
    }
    for (const p of props.principals) for (const s of statements) p.role.addToPrincipalPolicy(s);

    for (const cluster of direct) {
      // AWS::EKS::AccessEntry is regional: the stack can only create it for clusters in its own region.
      if (cluster.region !== undefined && cluster.region !== stack.region) {
        Annotations.of(this).addInfo(`cluster ${cluster.name}: ${cluster.eksClusterName} is in ${cluster.region}, not the stack's region; `
          + 'create its access entries there (see README.md, "Granting EKS access")');
        continue;
      }
      for (const p of props.principals) {
        this.accessEntries.push(new CfnAccessEntry(this, `${cluster.name}-${p.name}`, {
          clusterName: cluster.eksClusterName,
          principalArn: p.role.roleArn,
          type: 'STANDARD',
          kubernetesGroups: [p.kubernetesGroup],
        }));
      }
    }
    // Each group's ClusterRoleBinding (same name as the group and its ClusterRole) becomes RoleBindings.
    const groups = [...new Set(props.principals.map((p) => p.kubernetesGroup))];
    for (const cluster of props.clusters.filter((c) => c.namespaces !== undefined)) {
      const commands = namespaceBindingCommands(groups, cluster.namespaces ?? []).map((argv) => `kubectl ${argv.join(' ')}`);
      Annotations.of(this).addInfo(`cluster ${cluster.name}: limited to namespaces ${(cluster.namespaces ?? []).join(', ')}; after applying `
        + `infra/k8s/rollouts-rbac.yaml, run ${commands.map((c) => `\`${c}\``).join(', ')}`);
    }
    for (const cluster of props.clusters.filter((c) => c.tokenSecretArn !== undefined)) {
      Annotations.of(this).addInfo(`cluster ${cluster.name}: registered by endpoint; its token (in ${cluster.tokenSecretArn}) must belong to an `
        + `identity bound to the "${KUBERNETES_GROUP}" ClusterRole of infra/k8s/rollouts-rbac.yaml, and is used by every function, the API included `
        + '(see README.md, "Clusters registered by endpoint")');
    }
    for (const cluster of assumed.filter((c) => c.eksClusterName !== undefined)) {
      // Every principal assumes the same role there, so the read-only API acts with that role's rights.
      const readers = props.principals.filter((p) => p.kubernetesGroup !== KUBERNETES_GROUP).map((p) => p.name);
      Annotations.of(this).addInfo(`cluster ${cluster.name}: reached through ${cluster.roleArn}; map that role to the `
        + `"${KUBERNETES_GROUP}" group in the cluster's account (see README.md, "Clusters in other accounts")`
        + (readers.length > 0 ? `; the read-only principals (${readers.join(', ')}) assume it too, so they read that cluster with its rights, not read-only` : ''));
    }
  }
}

/**
 * The kubectl arguments that confine each group to `namespaces`: its ClusterRoleBinding of
 * infra/k8s/rollouts-rbac.yaml replaced by one RoleBinding per namespace to the same ClusterRole.
 * Printed at synth; test/integration/rbac.boundary.test.ts runs exactly these.
 */
export function namespaceBindingCommands(groups: readonly string[], namespaces: readonly string[]): string[][] {
  return groups.flatMap((group) => [
    ['delete', 'clusterrolebinding', group],
    ...namespaces.map((ns) => ['create', 'rolebinding', group, '-n', ns, `--clusterrole=${group}`, `--group=${group}`]),
  ]);
}
