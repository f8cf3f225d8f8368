// How every Lambda entry point is bundled: one function, bundleLambda, used by the CDK stack (local
// bundling of each ControllerFunction), scripts/bundle-report.mjs and the tests that run the
// bundles under a real Lambda runtime, so what is measured and tested is byte for byte what is
// deployed. Only erasable TypeScript: Node 22 loads this file directly (type stripping) from the
// .mjs scripts.
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';

/** The Lambda entry points: functions/<name>/handler.ts, each exporting `handler`. */
export const FUNCTION_NAMES = ['reconcile', 'sweep', 'api', 'watch-proxy'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export function entryPath(name: FunctionName): string {
  return `functions/${name}/handler.ts`;
}

/** The output file (ESM); the handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';
export const BUNDLE_HANDLER = 'index.handler';

/**
 * esbuild options. ESM output because the code base is ESM (`"type": "module"`, ESM-only
 * @kubernetes/client-node, top-level await allowed), so the bundle runs with the module semantics
 * the tests run with. CJS dependencies inside an ESM bundle (hpagent, socks) call require() for Node
 * built-ins, which esbuild's ESM shim rejects ("Dynamic require of "stream" is not supported"),
 * hence the createRequire banner (middy and Powertools docs).
 */
export const LAMBDA_BUNDLING = {
  format: 'esm',
  platform: 'node',
  /** Matches Runtime.NODEJS_22_X. */
  target: 'node22',
  minify: true,
  /**
   * Our errors set `this.name = new.target.name`; minified class names would turn
   * `StaleStateError` into `t` in logs and API responses.
   */
  keepNames: true,
  /** A linked source map (no embedded sources) so stack traces name the .ts line. */
  sourcemap: true,
  sourcesContent: false,
  /** Prefer the ESM builds of dependencies (the AWS SDK ships both): better tree-shaking. */
  mainFields: ['module', 'main'],
  banner: "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);",
  /**
   * The AWS SDK is bundled, not taken from the runtime: the versions locked in package-lock.json
   * are the ones the tests ran, and a bundled, minified SDK loads faster.
   */
  external: [] as string[],
} as const;

/**
 * Environment every function gets so stack traces name .ts files and lines. It costs cold-start
 * time (Node reads and parses the map with the module): scripts/bundle-report.mjs measures init
 * with and without it. Kept because this controller patches production workloads and a readable
 * stack in the logs is worth a few milliseconds on a queue-driven cold start.
 */
export const BUNDLE_RUNTIME_ENV = { NODE_OPTIONS: '--enable-source-maps' } as const;

/**
 * @kubernetes/client-node 2.0.1 declares no `sideEffects`, so esbuild keeps every module its index
 * reaches: all ~60 generated API classes, their ~750 model classes (each file assigns static
 * metadata to its own class, which counts as a side effect) and the exec/attach/cp helpers with
 * ws and tar — about 1.3 MB of a 3.2 MB bundle, none of which the functions use (they speak wire
 * JSON through KubeConfig's authentication and Node's https: shared/adapters/kubernetes/transport.ts).
 * Its modules have no side effects beyond those on their own exports except polyfill.js (a
 * `File` global for Node 18), so we declare that here and esbuild drops whatever nothing imports.
 */
const kubernetesClientSideEffects: Plugin = {
  name: 'client-node-side-effects',
  setup(b) {
    b.onResolve({ filter: /./ }, async (args) => {
      if (args.pluginData === OWN_RESOLVE || !args.importer.includes('/node_modules/@kubernetes/client-node/')) return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: OWN_RESOLVE });
      if (resolved.errors.length > 0 || !resolved.path.includes('/node_modules/@kubernetes/client-node/dist/')) return undefined;
      if (resolved.path.endsWith('/polyfill.js')) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};
/** Marks the resolutions our plugins ask esbuild for themselves, which no plugin of ours handles again. */
const OWN_RESOLVE = Symbol('resolved by a plugin of ours');

/**
 * What client-node's config.js imports for ways of reaching a cluster that the functions never take,
 * replaced by names that fail loudly if something ever reaches them (the Lambda-runtime test runs
 * every bundle, test/integration/testbed.lambda-runtime.test.ts). The functions build every
 * KubeConfig from options with a bearer token and no proxy (shared/adapters/kubernetes/kubeConfigs.ts)
 * and send every request, watches included, over Node's https (transport.ts). They are CommonJS or
 * eagerly imported, so esbuild cannot drop them, and each costs compile time at every cold start:
 *  - undici: the generated API classes' and Watch's HTTP client (applySecurityAuthentication,
 *    applyToFetchOptions); its index alone is ~740 KB, `Agent`, `ProxyAgent` and `fetch` ~370 KB;
 *  - js-yaml: loadFromString/loadFromFile (kubeconfig files: local mode only), ~50 KB;
 *  - socks, socks-proxy-agent, hpagent: a cluster's proxy-url, which no registration carries, ~75 KB
 *    with ip-address and smart-buffer;
 *  - openid-client, jsonpath-plus: the OIDC, Azure and GCP auth-provider plugins of kubeconfig
 *    users, ~45 KB.
 */
const ABSENT_IN_LAMBDAS: Record<string, readonly string[]> = {
  undici: ['Agent', 'ProxyAgent', 'fetch'],
  'js-yaml': ['load', 'loadAll', 'dump'],
  socks: ['SocksClient'],
  'socks-proxy-agent': ['SocksProxyAgent'],
  hpagent: ['HttpProxyAgent', 'HttpsProxyAgent'],
  'openid-client': ['discovery', 'refreshTokenGrant', 'customFetch'],
  'jsonpath-plus': ['JSONPath'],
};
const absentInLambdas: Plugin = {
  name: 'absent-in-lambdas',
  setup(b) {
    const filter = new RegExp(`^(${Object.keys(ABSENT_IN_LAMBDAS).join('|')})$`);
    b.onResolve({ filter }, (args) => (args.importer.includes('/node_modules/@kubernetes/client-node/') ? { path: args.path, namespace: 'absent-in-lambdas' } : undefined));
    b.onLoad({ filter: /./, namespace: 'absent-in-lambdas' }, (args) => ({
      loader: 'js',
      contents: `const absent = (name) => { throw new Error(${JSON.stringify(`${args.path}.`)} + name + ' is not in the Lambda bundles (infra/bundling.ts): the functions reach clusters with a bearer token over shared/adapters/kubernetes/transport.ts'); };
for (const name of ${JSON.stringify(ABSENT_IN_LAMBDAS[args.path] ?? [])}) Object.defineProperty(module.exports, name, { enumerable: true, get: () => absent(name) });`,
    }));
  },
};

/**
 * Node built-ins through require() (the banner's createRequire), not ESM imports. Node builds an
 * ESM facade of a built-in by reading every export, and node:http's WebSocket, CloseEvent and
 * MessageEvent are getters that load Node's own copy of undici: `import http from 'node:http'` (in
 * client-node's config.js) costs ~20 ms of cold start for classes nothing uses. require() returns
 * the same module object without the facade.
 */
const builtinsViaRequire: Plugin = {
  name: 'builtins-via-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined;
      return args.namespace === 'node-builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'node-builtin' };
    });
    b.onLoad({ filter: /./, namespace: 'node-builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

export interface BundleResult {
  /** The entry file (`<outdir>/index.mjs`). */
  file: string;
  /** Every code file written (the entry and its chunks), with its size. */
  outputs: { path: string; bytes: number }[];
  /** The files a cold start loads: the entry and the chunks it imports statically (not through import()). */
  loadedAtInit: string[];
  metafile: Metafile;
}

/** Bundles functions/<name>/handler.ts into `<outdir>/index.mjs` (+ `.map`), as deployed. */
export function bundleLambda(name: FunctionName, outdir: string, projectRoot = PROJECT_ROOT): Promise<BundleResult> {
  return bundleEntry(entryPath(name), outdir, projectRoot);
}

/** The same build for any entry module (relative to `projectRoot`), e.g. to see what one import costs. */
export async function bundleEntry(entry: string, outdir: string, projectRoot = PROJECT_ROOT): Promise<BundleResult> {
  const b = LAMBDA_BUNDLING;
  const file = `${outdir}/${BUNDLE_FILE}`;
  const result = await build({
    absWorkingDir: projectRoot,
    entryPoints: [{ in: entry, out: BUNDLE_FILE.replace(/\.mjs$/, '') }],
    outdir,
    // A module loaded with import() (the API's cluster access, shared/app/lazyClusterProvider.ts)
    // becomes a chunk of its own, read from disk only when first imported.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: b.format,
    platform: b.platform,
    target: b.target,
    minify: b.minify,
    keepNames: b.keepNames,
    sourcemap: b.sourcemap,
    sourcesContent: b.sourcesContent,
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    external: [...b.external],
    plugins: [kubernetesClientSideEffects, absentInLambdas, builtinsViaRequire],
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs).filter(([out]) => out.endsWith('.mjs'))
    .map(([out, o]) => ({ path: path.resolve(projectRoot, out), bytes: o.bytes }));
  return { file, outputs, loadedAtInit: staticClosure(result.metafile, path.resolve(projectRoot, file), projectRoot), metafile: result.metafile };
}

/** The entry output and every output it reaches through static imports (metafile paths are relative to projectRoot). */
function staticClosure(metafile: Metafile, entry: string, projectRoot: string): string[] {
  const seen = new Set<string>();
  const visit = (out: string): void => {
    if (seen.has(out) || !metafile.outputs[out]) return;
    seen.add(out);
    for (const imp of metafile.outputs[out].imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
  };
  visit(path.relative(projectRoot, entry));
  return [...seen].map((out) => path.resolve(projectRoot, out));
}

const PROJECT_ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

export interface BundleContributor {
  /** A package (`undici`, `@aws-sdk/client-sqs`) or a folder of ours (`shared/adapters`). */
  name: string;
  bytes: number;
}

/** What the bytes of a bundle (all its files) are, by package (ours by top-level folder), largest first. */
export function bundleContributors(metafile: Metafile): BundleContributor[] {
  const totals = new Map<string, number>();
  const inputs = Object.values(metafile.outputs).flatMap((o) => Object.entries(o.inputs));
  for (const [input, { bytesInOutput }] of inputs) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    const name = pkg ?? input.split('/').slice(0, 2).join('/');
    totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
  }
  return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, c) => c.bytes - a.bytes);
}
