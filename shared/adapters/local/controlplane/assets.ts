// Where the control plane's files live: the binaries and kwok stages built by
// scripts/build-testplane.sh (cached outside the repo), and the product's RBAC manifest; and where
// the other test-bed components built by scripts/build-testbed.sh are.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../errors.ts';

export const COMPONENT_BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
export type ComponentBinary = (typeof COMPONENT_BINARIES)[number];

export interface ControlPlaneAssets {
  binDir: string;
  /** kwok's default Stage YAMLs, copied beside the binaries by the build script. */
  stagesDir: string;
  /** infra/k8s/rollouts-rbac.yaml: the least-privilege role the product documents. */
  rbacManifestPath: string;
  binary(name: ComponentBinary): string;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * Finds the testplane build. `ROLLOUTS_TESTPLANE_BIN` overrides the directory; otherwise the build
 * script is asked (with --print-dir, which only prints) so the cache key lives in one place.
 */
export function locateAssets(): ControlPlaneAssets {
  const script = path.join(repoRoot, 'scripts/build-testplane.sh');
  const binDir = process.env.ROLLOUTS_TESTPLANE_BIN || execFileSync('bash', [script, '--print-dir'], { encoding: 'utf8' }).trim();
  const missing = COMPONENT_BINARIES.filter((name) => !isExecutable(path.join(binDir, name)));
  if (missing.length > 0) {
    throw new ConfigError(`test control plane binaries missing in ${binDir}: ${missing.join(', ')}; run bash scripts/build-testplane.sh`);
  }
  const stagesDir = path.join(binDir, '..', 'stages');
  const rbacManifestPath = path.join(repoRoot, 'infra/k8s/rollouts-rbac.yaml');
  for (const file of [path.join(stagesDir, 'pod-ready.yaml'), rbacManifestPath]) {
    if (!fs.existsSync(file)) throw new ConfigError(`test control plane file missing: ${file}`);
  }
  return { binDir, stagesDir, rbacManifestPath, binary: (name) => path.join(binDir, name) };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The components scripts/build-testbed.sh builds, each in its own cache directory. */
export type TestbedComponent = 'kubectl' | 'kruise' | 'prometheus' | 'lambda-rie' | 'lambda-ric' | 'localstack';

const testbedDirs = new Map<TestbedComponent, string>();

/**
 * The cache directory of one test-bed component (asked from the build script, which only prints),
 * checked to hold `files` (relative paths). A missing build is a ConfigError naming the command
 * that makes it.
 */
export function locateTestbedComponent(component: TestbedComponent, files: readonly string[]): string {
  let dir = testbedDirs.get(component);
  if (dir === undefined) {
    const script = path.join(repoRoot, 'scripts/build-testbed.sh');
    dir = execFileSync('bash', [script, '--print-dir', component], { encoding: 'utf8' }).trim();
    testbedDirs.set(component, dir);
  }
  const missing = files.filter((file) => !fs.existsSync(path.join(dir, file)));
  if (missing.length > 0) {
    throw new ConfigError(`test bed component ${component} is not built (missing in ${dir}: ${missing.join(', ')}); run bash scripts/build-testbed.sh ${component}`);
  }
  return dir;
}
