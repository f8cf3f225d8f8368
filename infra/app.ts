// CDK app entry (cdk.json: `npx tsx infra/app.ts`). Deploy parameters come from context; see README.md, "Deploying to AWS".
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeployParameters } from './parameters.ts';
import { ServerlessRolloutsStack } from './stack.ts';

const app = new App();
new ServerlessRolloutsStack(app, 'ServerlessRollouts', {
  description: 'serverless-rollouts: progressive multi-batch releases for EKS workloads',
  // The account and region of the CLI's credentials; access entries are created in this region.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  parameters: readDeployParameters(app.node),
});
// Synth fails on any unacknowledged AwsSolutions finding (cdk-nag v3 is a validation plugin).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
