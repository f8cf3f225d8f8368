// The one-cluster, token-bearing KubeConfigs the cluster provider builds, and the in-place token swap
// that lets a connection's clients pick up a fresh token.
// From its own module rather than the package index: through the index, esbuild's code splitting
// puts everything the index re-exports that a lazy chunk uses (Exec, its WebSocket handler and ws,
// for exec hooks: shared/adapters/checks/exec.ts) in the chunk every function loads at init.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';

const USER = 'rollouts';

/** A one-cluster KubeConfig authenticating with a bearer token. */
export function tokenKubeConfig(name: string, c: { server: string; caData?: string; skipTLSVerify?: boolean; token: string }): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name, server: c.server, caData: c.caData, skipTLSVerify: c.skipTLSVerify ?? false }],
    users: [{ name: USER, token: c.token }],
    contexts: [{ name, cluster: name, user: USER }],
    currentContext: name,
  });
  return kc;
}

/**
 * Swaps the token in place. Clients made from `kc` read the user on every request, so they pick
 * the new token up, and the cluster entry (endpoint, CA) is reused as is.
 */
export function replaceToken(kc: KubeConfig, token: string): void {
  kc.loadFromOptions({
    clusters: kc.getClusters(),
    users: [{ name: USER, token }],
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
}
