// How every Lambda entry point is bundled, as plain data shared by the CDK stack (NodejsFunction)
// and scripts/bundle-report.mjs, so the report measures the bundles that are deployed. No imports:
// Node 22 loads this file directly (type stripping) from the .mjs script.

/** The Lambda entry points: functions/<name>/handler.ts, each exporting `handler`. */
export const FUNCTION_NAMES = ['reconcile', 'sweep', 'api', 'watch-proxy'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export function entryPath(name: FunctionName): string {
  return `functions/${name}/handler.ts`;
}

/**
 * esbuild options. ESM output (not CDK's CJS default) because the code base is ESM (`"type": "module"`,
 * ESM-only @kubernetes/client-node, top-level await allowed), so the bundle runs with the module
 * semantics the tests run with. CJS dependencies inside an ESM bundle (undici, aws-xray-sdk-core)
 * call require() for Node built-ins, which esbuild's ESM shim rejects ("Dynamic require of "stream"
 * is not supported"), hence the createRequire banner (ecosystem.md §a, middy and Powertools docs).
 */
export const LAMBDA_BUNDLING = {
  format: 'esm',
  platform: 'node',
  /** Matches Runtime.NODEJS_22_X; CDK derives the same target from the runtime. */
  target: 'node22',
  /** The output file CDK writes for ESM; the handler is then `index.handler`. */
  outfile: 'index.mjs',
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
   * Bundle the AWS SDK instead of using the runtime's copy: the versions locked in
   * package-lock.json are the ones the tests ran, and a bundled, minified SDK loads faster.
   */
  bundleAwsSdk: true,
} as const;

/**
 * Environment every function gets so stack traces name .ts files and lines. It costs cold-start
 * time (Node loads the map with the module): scripts/bundle-report.mjs measures init with and
 * without it. Kept because this controller patches production workloads and a readable stack in
 * the logs is worth tens of milliseconds on a queue-driven cold start.
 */
export const BUNDLE_RUNTIME_ENV = { NODE_OPTIONS: '--enable-source-maps' } as const;

/**
 * The same options in esbuild's API form (what NodejsFunction passes on the command line), for
 * scripts/bundle-report.mjs.
 */
export function esbuildOptions(entry: string, outdir: string) {
  const b = LAMBDA_BUNDLING;
  return {
    entryPoints: [entry],
    bundle: true,
    outfile: `${outdir}/${b.outfile}`,
    format: b.format,
    platform: b.platform,
    target: b.target,
    minify: b.minify,
    keepNames: b.keepNames,
    sourcemap: b.sourcemap,
    sourcesContent: b.sourcesContent,
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    external: b.bundleAwsSdk ? [] : ['@aws-sdk/*'],
  };
}
