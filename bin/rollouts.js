#!/usr/bin/env node
// Entry point of the `rollouts` command. The CLI is TypeScript: register tsx's loader, then run it.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../shared/cli/main.ts');
process.exitCode = await run(process.argv.slice(2));
