// Synthesizes the stack the way `cdk synth` does (cdk.json context, deploy parameters from context)
// but with bundling skipped, so a test takes seconds and needs no esbuild run.
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readDeployParameters } from './parameters.ts';
import { ServerlessRolloutsStack } from './stack.ts';

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';

const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };

export interface Synthesized {
  app: App;
  stack: ServerlessRolloutsStack;
  template: Template;
}

export function synth(context: Record<string, unknown> = {}): Synthesized {
  const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new ServerlessRolloutsStack(app, 'Rollouts', {
    env: { account: ACCOUNT, region: REGION },
    parameters: readDeployParameters(app.node),
  });
  return { app, stack, template: Template.fromStack(stack) };
}

/** A deployment exercising every branch: a direct cluster, one behind a role, one in another region, alarm e-mail. */
export const FULL_CONTEXT = {
  clusters: [
    { name: 'prod', eksClusterName: 'prod-eks' },
    { name: 'staging', eksClusterName: 'staging-eks', region: REGION, namespaces: ['web', 'api'] },
    { name: 'partner', eksClusterName: 'partner-eks', roleArn: 'arn:aws:iam::210987654321:role/rollouts-access' },
    { name: 'tokyo', eksClusterName: 'tokyo-eks', region: 'ap-northeast-1' },
  ],
  alarmEmail: 'ops@example.com',
};

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** The logical id of the only resource of `type` whose id starts with `prefix` (construct path order). */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with ${prefix}, found ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}

export function resources(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}
