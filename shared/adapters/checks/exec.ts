// exec hooks: the command in the pod through the Kubernetes exec API (client-node's Exec, over a
// WebSocket), with the KubeConfig the cluster provider built for the cluster. The command runs
// under `env` with the call's context (ROLLOUTS_IDEMPOTENCY_KEY, ROLLOUTS_POD, ROLLOUTS_PHASE…), so
// a hook can tell a redelivered call from a new one; it needs `env` in the container (every image
// with a shell has it). Exit 0 succeeds; anything else fails with the command's output and status
// (kwok reports the exit code only in the status message).
// stdin is never attached: kwok never closes it.
import { Writable } from 'node:stream';
// Exec from its own module, not the package index: through the index, esbuild's code splitting puts
// exec.js, its WebSocket handler and ws (~50 KB) in the chunk every function loads at init with
// KubeConfig, though only this module (loaded on the first exec hook) uses them.
import { Exec } from '@kubernetes/client-node/dist/exec.js';
import type { KubeConfig, V1Status } from '@kubernetes/client-node';
import type { HookOutcome, Invocation } from '../../rollout/checkTypes.ts';
import { HOOKS_CLUSTER_ROLE } from '../../kube/roles.ts';
import { errorText, excerpt } from './callBody.ts';

export type KubeConfigFor = (cluster: string) => Promise<KubeConfig>;

type HookCall = Extract<Invocation, { type: 'run-hook' }>;

/** The environment a hook's command gets, as `env NAME=value` arguments. */
export function hookEnv(call: HookCall): string[] {
  const c = call.context;
  return [
    `ROLLOUTS_IDEMPOTENCY_KEY=${call.idempotencyKey}`, `ROLLOUTS_ROLLOUT=${c.rollout.namespace}/${c.rollout.name}`, `ROLLOUTS_RELEASE=${c.releaseId}`,
    `ROLLOUTS_POD=${call.pod}`, `ROLLOUTS_REVISION=${call.podRevision}`, `ROLLOUTS_TARGET_REVISION=${c.revision}`, `ROLLOUTS_PHASE=${call.phase}`, `ROLLOUTS_ATTEMPT=${call.attempt}`,
  ];
}

export async function execHook(kc: KubeConfig, namespace: string, container: string, call: HookCall, command: string[]): Promise<HookOutcome> {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (out.length < 4096) out += chunk.toString('utf8');
      done();
    },
  });
  return new Promise<HookOutcome>((resolve) => {
    let settled = false;
    let socket: { close(): void } | null = null;
    const finish = (o: HookOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.close();
      resolve(o);
    };
    const timer = setTimeout(() => finish({ result: 'failed', retryable: true, output: `timed out after ${call.hook.timeoutSeconds}s${out ? `: ${excerpt(out)}` : ''}` }), call.hook.timeoutSeconds * 1000);
    const onStatus = (status: V1Status) => {
      const text = excerpt(out);
      if (status.status === 'Success') finish({ result: 'succeeded', output: text });
      else {
        const code = exitCode(status);
        const what = code === null ? excerpt(status.message ?? status.reason ?? 'failed') : `exit code ${code}`;
        finish({ result: 'failed', retryable: true, output: `${what}${text ? `: ${text}` : ''}` });
      }
    };
    new Exec(kc).exec(namespace, call.pod, container, ['env', ...hookEnv(call), ...command], sink, sink, null, false, onStatus)
      .then((ws) => {
        socket = ws;
        if (settled) ws.close();
        // A socket that closes without a status (the pod went away, the connection dropped): say so.
        ws.on('close', () => setTimeout(() => finish({ result: 'failed', retryable: true, output: `the exec stream closed without a status${out ? `; output: ${excerpt(out)}` : ''}` }), 50));
      })
      .catch((err: unknown) => {
        const text = errorText(err);
        // The apiserver refused the exec itself: no retry fixes a missing RoleBinding.
        if (/\b403\b/.test(text)) finish({ result: 'failed', retryable: false, output: `exec forbidden (${text}): bind the ClusterRole ${HOOKS_CLUSTER_ROLE} in namespace ${namespace} (infra/k8s/rollouts-rbac.yaml)` });
        else finish({ result: 'failed', retryable: true, output: `exec in ${namespace}/${call.pod}: ${text}` });
      });
  });
}

/**
 * The command's exit code: the kubelet puts it in the status' causes (ExitCode); kwok only in the
 * message ("… cmd wait: <command>: exit status 3"). null when neither says.
 */
function exitCode(status: V1Status): number | null {
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  if (cause?.message && /^\d+$/.test(cause.message)) return Number(cause.message);
  const m = /exit status (\d+)\s*$/.exec(status.message ?? '');
  return m ? Number(m[1]) : null;
}
