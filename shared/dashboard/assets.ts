// The dashboard's browser code, bundled by esbuild when the dashboard starts (about 0.1 s), in
// memory: nothing generated is committed or written to disk, and nothing is fetched at run time
// (preact and htm come from node_modules). The page itself is a fixed shell.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const UI_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ui');

export interface DashboardAssets {
  html: string;
  js: string;
  css: string;
}

export async function buildDashboardAssets(): Promise<DashboardAssets> {
  // Loaded here: the other commands do not pay for esbuild.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.join(UI_DIR, 'main.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const js = result.outputFiles[0]?.text ?? '';
  return { html: HTML, js, css: await readFile(path.join(UI_DIR, 'styles.css'), 'utf8') };
}

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rollouts dashboard</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body><div id="app"></div></body>
</html>
`;
