// The stack as `cdk synth` makes it for a deploy: infra/app.ts (cdk.json's app) run the way the CDK
// CLI runs an app (the context from cdk.json plus the deploy's, CDK_OUTDIR, CDK_DEFAULT_ACCOUNT and
// CDK_DEFAULT_REGION, bundling on), so the template, its cdk-nag validation and the four Lambda
// assets are the ones `cdk deploy` would upload. Bundling is the slow part, so one synthesis per
// context is shared by the test files of a run: scripts/run-tests.mjs gives them
// ROLLOUTS_TEST_SHARED_DIR and removes it afterwards (without it, e.g. under a bare `node --test`,
// each test process synthesizes into a temp dir of its own).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerExitCleanup } from '../../../shared/adapters/local/controlplane/exitCleanup.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const STACK_NAME = 'ServerlessRollouts';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface CloudAssembly {
  /** The cloud assembly directory: `cdk deploy --app <dir>` deploys it as synthesized. */
  dir: string;
  account: string;
  region: string;
  template: { Resources: Record<string, CfnResource>; Outputs?: Record<string, unknown> };
  /** The resources of one type, by logical id. */
  resources(type: string): Record<string, CfnResource>;
  /** The directory of the asset a Lambda function's Code points at (the bundle, unzipped). */
  functionCodeDir(logicalId: string): string;
}

export interface SynthOptions {
  account: string;
  region: string;
  /** Deploy parameters (`-c key=value`), over cdk.json's context. */
  context?: Record<string, unknown>;
}

/** What the CDK CLI adds to every app's context (cdk synth/deploy defaults). */
const CLI_CONTEXT = {
  'aws:cdk:enable-path-metadata': true,
  'aws:cdk:enable-asset-metadata': true,
  'aws:cdk:version-reporting': true,
  'aws:cdk:bundling-stacks': ['**'],
};

const inProcess = new Map<string, Promise<CloudAssembly>>();

/** The synthesized stack for these options: made once per run (or process), then read from disk. */
export function synthesizedStack(options: SynthOptions): Promise<CloudAssembly> {
  const key = createHash('sha256').update(JSON.stringify([options.account, options.region, options.context ?? {}])).digest('hex').slice(0, 16);
  let assembly = inProcess.get(key);
  if (!assembly) {
    assembly = synthesizeOnce(key, options);
    inProcess.set(key, assembly);
  }
  return assembly;
}

async function synthesizeOnce(key: string, options: SynthOptions): Promise<CloudAssembly> {
  const dir = path.join(sharedDir(), `assembly-${key}`);
  const manifest = path.join(dir, 'manifest.json');
  // The deployed.* files start together (the longest first: scripts/run-tests.mjs): one synthesizes
  // while the others wait for its assembly instead of bundling the same four functions beside it.
  const lock = `${dir}.lock`;
  while (!fs.existsSync(manifest) && !takeLock(lock)) await new Promise((resolve) => setTimeout(resolve, 250));
  if (!fs.existsSync(manifest)) {
    const staging = fs.mkdtempSync(`${dir}.staging-`);
    try {
      await runApp(staging, options);
      // A rename is atomic: another test process of the run sees the whole assembly or none.
      fs.renameSync(staging, dir);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (!fs.existsSync(manifest)) throw err;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  return readAssembly(dir, options);
}

/** mkdir is atomic: true when this process now holds the lock. A lock whose holder died is taken over. */
function takeLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let holder = 0;
  try {
    holder = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    // Released meanwhile, or its holder has not written its pid yet.
  }
  if (holder > 0 && !alive(holder)) fs.rmSync(lock, { recursive: true, force: true });
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sharedDir(): string {
  const fromRunner = process.env.ROLLOUTS_TEST_SHARED_DIR;
  if (fromRunner) {
    fs.mkdirSync(fromRunner, { recursive: true });
    return fromRunner;
  }
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'rollouts-synth-'));
  registerExitCleanup(() => fs.rmSync(own, { recursive: true, force: true }));
  return own;
}

async function runApp(outdir: string, options: SynthOptions): Promise<void> {
  const cdkJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { app: string; context: Record<string, unknown> };
  // cdk.json's app is `npx tsx infra/app.ts`: the same module under this Node 22 with tsx's loader.
  const entry = cdkJson.app.replace(/^npx tsx /, '');
  const context = { ...cdkJson.context, ...CLI_CONTEXT, ...options.context };
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify(context),
      CDK_DEFAULT_ACCOUNT: options.account,
      CDK_DEFAULT_REGION: options.region,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const cancel = registerExitCleanup(() => child.kill('SIGKILL'));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  }).finally(cancel);
  if (code !== 0) throw new Error(`synthesizing ${entry} failed (exit ${code}):\n${output}`);
}

function readAssembly(dir: string, options: SynthOptions): CloudAssembly {
  const template = JSON.parse(fs.readFileSync(path.join(dir, `${STACK_NAME}.template.json`), 'utf8')) as CloudAssembly['template'];
  const assets = JSON.parse(fs.readFileSync(path.join(dir, `${STACK_NAME}.assets.json`), 'utf8')) as {
    files: Record<string, { source: { path: string; packaging?: string } }>;
  };
  const resources = (type: string): Record<string, CfnResource> =>
    Object.fromEntries(Object.entries(template.Resources).filter(([, r]) => r.Type === type));
  return {
    dir, account: options.account, region: options.region, template, resources,
    functionCodeDir(logicalId) {
      const fn = template.Resources[logicalId];
      const key = (fn?.Properties?.Code as { S3Key?: unknown } | undefined)?.S3Key;
      if (fn?.Type !== 'AWS::Lambda::Function' || typeof key !== 'string') throw new Error(`${logicalId} is not a Lambda function with an S3 asset`);
      const asset = assets.files[key.replace(/\.zip$/, '')];
      if (!asset || asset.source.packaging !== 'zip') throw new Error(`no zip asset ${key} for ${logicalId} in ${dir}`);
      return path.join(dir, asset.source.path);
    },
  };
}
