// The real kubectl (same version as the control plane, built by scripts/build-testbed.sh), for what
// client-node does not do as kubectl does: server-side apply of big CRDs (client-node's serializer
// drops schema keys such as x-kubernetes-int-or-string), `kustomize`, `exec`, `rollout`.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { locateTestbedComponent } from './assets.ts';

export function kubectlPath(): string {
  return path.join(locateTestbedComponent('kubectl', ['bin/kubectl']), 'bin/kubectl');
}

export interface KubectlResult {
  stdout: string;
  stderr: string;
  /** kubectl's exit code (0 on success). */
  code: number;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin, which is then closed. */
  input?: string;
  /** Killed after this long (default 60 s): a hung kubectl must fail the caller, not stall it. */
  timeoutMs?: number;
  cwd?: string;
}

/** Runs `kubectl --kubeconfig=<kubeconfig> args...`; resolves with its output and exit code, whatever the code. */
export function runKubectl(kubeconfig: string, args: readonly string[], options: KubectlOptions = {}): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      kubectlPath(),
      [`--kubeconfig=${kubeconfig}`, ...args],
      { encoding: 'utf8', timeout: options.timeoutMs ?? 60_000, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024, cwd: options.cwd },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`kubectl ${args.join(' ')}: ${error.killed ? 'timed out' : error.message}\n${stderr}`, { cause: error }));
          return;
        }
        resolve({ stdout, stderr, code: typeof error?.code === 'number' ? error.code : 0 });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}
