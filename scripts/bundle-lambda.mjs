#!/usr/bin/env node
// Bundles one Lambda entry point as deployed (infra/bundling.ts bundleLambda). The CDK stack runs it
// for each function's asset (infra/constructs/ControllerFunction.ts, local bundling: synth needs no
// Docker), with Node 22 as the process that runs the CDK app.
// Usage: node scripts/bundle-lambda.mjs <function> <outdir>
import { FUNCTION_NAMES, bundleLambda } from '../infra/bundling.ts';

const [name, outdir] = process.argv.slice(2);
if (!FUNCTION_NAMES.includes(name) || !outdir) {
  console.error(`usage: bundle-lambda.mjs <${FUNCTION_NAMES.join('|')}> <outdir>`);
  process.exit(2);
}
await bundleLambda(name, outdir);
