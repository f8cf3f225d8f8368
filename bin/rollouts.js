#!/usr/bin/env node
// Entry point of the `rollouts` command. The CLI is TypeScript: register tsx's loader, then run it.
// It needs Node 22 (the Lambda runtime; some dependencies do not load on older versions). Through
// npm (`npx rollouts`, `npm start`) the node@22 devDependency comes first on PATH.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`error: rollouts needs Node >= 22.12, this is ${process.versions.node}; run it through npm (npx rollouts …, npm start), which uses the node@22 devDependency\n`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
const { run } = await import('../shared/cli/main.ts');
process.exitCode = await run(process.argv.slice(2));
