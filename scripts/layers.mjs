// The layers of docs/architecture.md as data: which part of the tree may import which. Read by the
// lint rule that checks every import as it is written (eslint.config.js, rule layers/downward) and by
// the unit test that checks the whole import graph at once, cycles included
// (test/unit/architecture/importGraph.test.ts). A part may import its own files and the parts it lists.
import path from 'node:path';

/** Most specific first: a file belongs to the first part one of whose paths it starts with. */
export const PARTS = [
  // The package manifest (the CLI prints its version).
  { name: 'manifest', paths: ['package.json'], may: [] },
  // Kernel: pure helpers and the wire shapes every layer speaks.
  { name: 'kernel', paths: ['shared/errors.ts', 'shared/json.ts', 'shared/meter.ts', 'shared/kube/'], may: [] },
  // The rollout core: pure, no SDK, no I/O (its own lint rules say so too).
  { name: 'core', paths: ['shared/rollout/'], may: ['kernel'] },
  // The fleet core: pure like the rollout core, which it builds on (a member is a rollout).
  { name: 'fleet', paths: ['shared/fleet/'], may: ['core', 'kernel'] },
  // The ports: interfaces only, over the core's types.
  { name: 'ports', paths: ['shared/ports.ts'], may: ['fleet', 'core', 'kernel'] },
  // The wall clock, the one implementation of the Clock port that reads the time.
  { name: 'clock', paths: ['shared/clock.ts'], may: ['ports'] },
  // The workload drivers: each owns its kind.
  { name: 'drivers', paths: ['shared/workloads/'], may: ['ports', 'fleet', 'core', 'kernel'] },
  // The traffic providers (docs/traffic.md): each writes its own routing objects, beside the drivers.
  { name: 'traffic', paths: ['shared/traffic/'], may: ['drivers', 'ports', 'fleet', 'core', 'kernel'] },
  // The services, written against the ports and the drivers; they do not import one another.
  { name: 'reconcile', paths: ['shared/reconcile/'], may: ['traffic', 'drivers', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'watch', paths: ['shared/watch/'], may: ['traffic', 'drivers', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'api', paths: ['shared/api/'], may: ['traffic', 'drivers', 'ports', 'fleet', 'core', 'kernel'] },
  // The adapters implement the ports; they never import a service, a driver or a composition root.
  { name: 'adapters', paths: ['shared/adapters/'], may: ['clock', 'ports', 'fleet', 'core', 'kernel'] },
  // The composition roots: the Lambdas' and local mode's; neither imports the other.
  { name: 'app', paths: ['shared/app/'], may: ['reconcile', 'watch', 'api', 'adapters', 'traffic', 'drivers', 'clock', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'local', paths: ['shared/local/'], may: ['reconcile', 'watch', 'api', 'adapters', 'traffic', 'drivers', 'clock', 'ports', 'fleet', 'core', 'kernel'] },
  // The interfaces people and AWS use, from the API's client up.
  { name: 'client', paths: ['shared/client/'], may: ['api', 'fleet', 'core', 'kernel'] },
  { name: 'dashboard', paths: ['shared/dashboard/'], may: ['client', 'api', 'clock', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'cli', paths: ['shared/cli/'], may: ['manifest', 'dashboard', 'client', 'local', 'api', 'traffic', 'drivers', 'clock', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'functions', paths: ['functions/'], may: ['app', 'reconcile', 'watch', 'api', 'adapters', 'traffic', 'drivers', 'clock', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'infra', paths: ['infra/'], may: ['app', 'api', 'adapters', 'traffic', 'drivers', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'bin', paths: ['bin/'], may: ['cli'] },
  // Around the product: the benchmarks and the tooling use it; only the tests may use the tests' support.
  { name: 'bench', paths: ['bench/'], may: ['manifest', 'scripts', 'infra', 'bin', 'functions', 'cli', 'dashboard', 'client', 'app', 'local', 'reconcile', 'watch', 'api', 'adapters', 'traffic', 'drivers', 'clock', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'scripts', paths: ['scripts/'], may: ['manifest', 'bench', 'infra', 'functions', 'cli', 'dashboard', 'client', 'app', 'local', 'reconcile', 'watch', 'api', 'adapters', 'traffic', 'drivers', 'clock', 'ports', 'fleet', 'core', 'kernel'] },
  { name: 'test', paths: ['test/'], may: ['*'] },
];

/** The part a repo-relative path belongs to, or null when it is outside every part. */
export function partOf(repoPath) {
  const p = repoPath.split(path.sep).join('/');
  return PARTS.find((part) => part.paths.some((prefix) => (prefix.endsWith('/') ? p.startsWith(prefix) : p === prefix))) ?? null;
}

/**
 * Why importing `to` from `from` (repo-relative paths) breaks the layering, or null when it may.
 * Imports within one part are the part's own business.
 */
export function arrowProblem(from, to) {
  const a = partOf(from);
  const b = partOf(to);
  if (a === null || b === null || a === b) return null;
  if (a.may.includes('*') || a.may.includes(b.name)) return null;
  return `${a.name} may not import ${b.name} (${to}): imports point down the layers of docs/architecture.md (scripts/layers.mjs)`;
}
