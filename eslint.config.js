import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { arrowProblem } from './scripts/layers.mjs';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/**
 * layers/downward: every relative import points down the layers of docs/architecture.md, as
 * scripts/layers.mjs lists them (test/unit/architecture/importGraph.test.ts checks the whole graph,
 * cycles included).
 */
const layers = {
  rules: {
    downward: {
      meta: { type: 'problem', schema: [], docs: { description: 'imports point down the layers (scripts/layers.mjs)' } },
      create(context) {
        const from = path.relative(ROOT, context.filename);
        const check = (node, source) => {
          if (typeof source !== 'string' || !source.startsWith('.')) return;
          const problem = arrowProblem(from, path.relative(ROOT, path.resolve(path.dirname(context.filename), source)));
          if (problem) context.report({ node, message: problem });
        };
        return {
          ImportDeclaration: (node) => check(node, node.source.value),
          ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
          ExportAllDeclaration: (node) => check(node, node.source.value),
          ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
        };
      },
    },
  },
};

// `import { z } from 'zod'` makes esbuild keep all of zod, its ~40 locales included (450 KB of a
// Lambda bundle); `import * as z from 'zod'`, the form zod's docs use, keeps what is used (~95 KB).
const ZOD_NAMESPACE = {
  selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z'][importKind!='type']",
  message: "Use `import * as z from 'zod'`: the named import bundles every zod locale (infra/bundling.ts).",
};

// One clock (shared/clock.ts): the product reads the time only through an injected Clock, so a pass
// observes, plans and persists on one instant and tests drive time by hand. Elapsed time (deadlines,
// durations) is performance.now(), which no test needs to move.
const WALL_CLOCK = {
  selector: "NewExpression[callee.name='Date'][arguments.length=0]",
  message: 'Read the time from the injected Clock (shared/clock.ts), not new Date().',
};
const DATE_NOW = { object: 'Date', property: 'now', message: 'Read the time from the injected Clock (shared/clock.ts); for elapsed time, performance.now().' };

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.rollouts/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { layers },
    rules: { 'layers/downward': 'error' },
  },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', Buffer: 'readonly', AbortController: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', ZOD_NAMESPACE],
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts', 'bin/**/*.js'],
    ignores: ['shared/clock.ts'],
    rules: {
      'no-restricted-syntax': ['error', ZOD_NAMESPACE, WALL_CLOCK],
      'no-restricted-properties': ['error', DATE_NOW],
    },
  },
  {
    // The dashboard's page runs in the browser (shared/dashboard/ui/tsconfig.json adds the DOM types).
    files: ['shared/dashboard/ui/**/*.ts'],
    languageOptions: { globals: { document: 'readonly', location: 'readonly', addEventListener: 'readonly', removeEventListener: 'readonly' } },
  },
  {
    // Tests inspect untyped wire JSON (patch bodies, apiserver objects); product code stays typed.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The rollout core and the fleet core are pure: no SDK, no Kubernetes client, no Lambda types,
    // no I/O modules (docs/fleet.md: planFleet is plan()'s counterpart for a fleet).
    files: ['shared/rollout/**/*.ts', 'shared/fleet/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['@aws-sdk/*', '@kubernetes/*', '@middy/*', '@aws-lambda-powertools/*', 'aws-lambda', 'aws-cdk-lib', 'aws-cdk-lib/*'], message: 'shared/rollout and shared/fleet are pure: no SDK imports.' },
          { group: ['node:fs', 'node:fs/*', 'node:http', 'node:https', 'node:net', 'node:child_process', 'fs', 'http', 'https', 'net', 'child_process'], message: 'shared/rollout and shared/fleet are pure: no I/O.' },
          { group: ['../adapters/*', '../reconcile/*', '../workloads/*', '../cli/*', '../api/*', '../app/*', '../local/*', '../watch/*', '../dashboard/*'], message: 'shared/rollout and shared/fleet must not depend on outer layers.' },
        ],
      }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'Use the injected clock (now argument).' },
        { object: 'Math', property: 'random', message: 'The planner is deterministic.' },
      ],
      'no-restricted-syntax': ['error', ZOD_NAMESPACE, { ...WALL_CLOCK, message: 'The planner is given `now`.' }],
      'no-restricted-globals': ['error', { name: 'process', message: 'The planner never reads process.env.' }],
    },
  },
  {
    // Traffic providers compute desired router objects as pure data, as the workload drivers' writes do.
    files: ['shared/traffic/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['@aws-sdk/*', '@kubernetes/*', '@middy/*', 'node:fs', 'node:fs/*', 'node:http', 'node:https', 'node:net', 'node:child_process'], message: 'shared/traffic is pure: no SDK, no I/O.' },
          { group: ['../adapters/*', '../reconcile/*', '../cli/*', '../api/*', '../app/*', '../../adapters/*', '../../reconcile/*', '../../cli/*', '../../api/*', '../../app/*'], message: 'shared/traffic must not depend on outer layers.' },
        ],
      }],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'Providers are pure: no clock.' }],
    },
  },
);
