// Where scripts/build-dataplane.sh cached Traefik and the Gateway API CRDs (asked from the script,
// which only prints with --print-dir, so the cache key lives in one place).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../shared/errors.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function componentDir(component: 'traefik' | 'gateway-api', file: string): string {
  const dir = execFileSync('bash', [path.join(repoRoot, 'scripts/build-dataplane.sh'), '--print-dir', component], { encoding: 'utf8' }).trim();
  if (!fs.existsSync(path.join(dir, file))) {
    throw new ConfigError(`data plane component ${component} is not built (missing ${path.join(dir, file)}); run bash scripts/build-dataplane.sh ${component}`);
  }
  return dir;
}

export interface DataPlaneAssets {
  traefik: string;
  /** The Gateway API standard channel's CRDs (and its upgrade-guard ValidatingAdmissionPolicy). */
  gatewayApiCrdsDir: string;
}

export function locateDataPlane(): DataPlaneAssets {
  return {
    traefik: path.join(componentDir('traefik', 'bin/traefik'), 'bin/traefik'),
    gatewayApiCrdsDir: path.join(componentDir('gateway-api', '.complete'), 'crds'),
  };
}
