// The deployed product: state table, workqueue, four functions, schedules, event bus, EKS access,
// alarms. Wiring and permissions only; what the functions do lives in functions/ and shared/.
import { CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FunctionUrlAuthType } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { ENV } from '../shared/app/config.ts';
import { ClusterAccess, KUBERNETES_GROUP, KUBERNETES_VIEW_GROUP } from './constructs/ClusterAccess.ts';
import type { ClusterPrincipal } from './constructs/ClusterAccess.ts';
import { ControllerFunction } from './constructs/ControllerFunction.ts';
import { OperationsAlarms } from './constructs/OperationsAlarms.ts';
import { OperationsDashboard } from './constructs/OperationsDashboard.ts';
import { PeriodicInvocation } from './constructs/PeriodicInvocation.ts';
import { ReconcileQueues } from './constructs/ReconcileQueues.ts';
import { RolloutEventBus } from './constructs/RolloutEventBus.ts';
import { RolloutNotifications } from './constructs/RolloutNotifications.ts';
import { DLQ_RETENTION, secureQueue } from './constructs/secureQueue.ts';
import { StateTable } from './constructs/StateTable.ts';
import { WakeSchedules } from './constructs/WakeSchedules.ts';
import { ReconcileNetwork } from './constructs/ReconcileNetwork.ts';
import type { ChecksParameter, DeployParameters } from './parameters.ts';

/** Source of our transition events (ROLLOUTS_EVENT_SOURCE). */
export const EVENT_SOURCE = 'serverless-rollouts';

/** Hook and gate calls fit in it (shared/rollout/checkSchema.ts MAX_CALL_TIMEOUT_SECONDS). */
const RECONCILE_TIMEOUT = Duration.seconds(30);
/** The sweep's tick; each tick covers the resync turns of the minute before it. */
const SWEEP_RATE = Duration.minutes(1);
/** watchProxyMode always: a watcher every 5 minutes ... */
const WATCH_RATE = Duration.minutes(5);
/** ... lasting one minute longer, so a new watcher starts before the old one stops: no blind gap. */
const WATCH_TIMEOUT = Duration.minutes(6);
/** watchProxyMode on-demand: each watcher runs as long as Lambda allows (fewer starts); successors overlap it. */
const ON_DEMAND_WATCH_TIMEOUT = Duration.minutes(15);
/** ROLLOUTS_WATCH_MARGIN_SECONDS' default: a watcher stops this long before its timeout. */
const WATCH_MARGIN_SECONDS = 20;

export interface ServerlessRolloutsStackProps extends StackProps {
  readonly parameters: DeployParameters;
}

export class ServerlessRolloutsStack extends Stack {
  constructor(scope: Construct, id: string, props: ServerlessRolloutsStackProps) {
    super(scope, id, props);
    const params = props.parameters;

    const state = new StateTable(this, 'State');
    const queues = new ReconcileQueues(this, 'Queues', {
      // AWS's recommendation for Lambda event sources: 6× the function timeout.
      visibilityTimeout: Duration.seconds(RECONCILE_TIMEOUT.toSeconds() * 6),
    });
    // Scheduler ticks and notification events that could not be delivered (not messages that failed in reconcile).
    const deliveryDlq = secureQueue(this, 'DeliveryDlq', { retentionPeriod: DLQ_RETENTION });
    Validations.of(deliveryDlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue: the DLQ of the Scheduler schedules and of the notification rule targets '
        + '(cdk-nag only recognises DLQs named in another queue\'s redrive policy).',
    });
    const events = new RolloutEventBus(this, 'Events');

    const wakeSchedules = new WakeSchedules(this, 'WakeSchedules', { triggerQueue: queues.trigger });

    // loadConfig (shared/app/config.ts) validates the whole configuration at cold start, so every
    // function gets every required variable, whichever it uses.
    const environment = {
      ...wakeSchedules.environment,
      [ENV.tableName]: state.table.tableName,
      [ENV.queueUrl]: queues.work.queueUrl,
      [ENV.triggerQueueUrl]: queues.trigger.queueUrl,
      [ENV.eventBusName]: events.bus.eventBusName,
      [ENV.eventSource]: EVENT_SOURCE,
      [ENV.sweepIntervalSeconds]: String(SWEEP_RATE.toSeconds()),
      [ENV.resyncPeriodSeconds]: String(params.resyncPeriodSeconds),
    };

    const network = params.vpc ? new ReconcileNetwork(this, 'ReconcileNetwork', { vpc: params.vpc }) : undefined;
    const reconcile = new ControllerFunction(this, 'Reconcile', {
      name: 'reconcile',
      description: 'serverless-rollouts: reconcile one rollout per queue message (observe, plan, apply, persist)',
      // The largest bundle (Kubernetes client) and TLS to apiservers: more memory buys the CPU for a fast cold start.
      memorySize: 1024,
      timeout: RECONCILE_TIMEOUT,
      environment,
      ...(network ? { network } : {}),
    });
    for (const queue of [queues.work, queues.trigger]) {
      reconcile.fn.addEventSource(new SqsEventSource(queue, {
        // Small batches: one slow cluster delays few other keys, and a retry repeats little work.
        batchSize: 5,
        reportBatchItemFailures: true,
        maxConcurrency: params.reconcileConcurrency,
      }));
    }
    reconcile.grant(tableItems(state, ['Query', 'GetItem', 'PutItem', 'DeleteItem', 'BatchWriteItem']));
    reconcile.grant(sendTo(queues.trigger.queueArn));
    reconcile.grant(putEvents(events.bus.eventBusArn, EVENT_SOURCE));
    // Wake-ups beyond SQS's 15-minute delay: one-off schedules in their own group.
    wakeSchedules.grantManage(reconcile.role);
    // Hooks and gates: exactly the functions, alarms and workspaces the deploy parameters name.
    grantChecks(reconcile, params.checks);

    const sweep = new ControllerFunction(this, 'Sweep', {
      name: 'sweep',
      description: 'serverless-rollouts: every minute, enqueue the rollouts whose wake-up is due or whose resync turn came',
      memorySize: 256,
      timeout: Duration.seconds(30),
      // The next tick (one minute later) supersedes a failed one; a retry would only overlap it.
      retryAttempts: 0,
      environment,
    });
    sweep.grant(new PolicyStatement({ actions: ['dynamodb:Query'], resources: [state.dueIndexArn] }));
    sweep.grant(sendTo(queues.work.queueArn));
    new PeriodicInvocation(this, 'SweepSchedule', {
      fn: sweep.fn,
      rate: SWEEP_RATE,
      description: 'serverless-rollouts sweep tick',
      deadLetterQueue: deliveryDlq,
      maxEventAge: Duration.minutes(1),
    });

    const api = new ControllerFunction(this, 'Api', {
      name: 'api',
      description: 'serverless-rollouts: HTTP API (Function URL, IAM auth)',
      memorySize: 512,
      timeout: Duration.seconds(15),
      environment: params.apiAuthorization ? { ...environment, [ENV.apiAuthorization]: JSON.stringify(params.apiAuthorization) } : environment,
    });
    // GetItem also reads cluster registrations for the workload route (RegisteredClusterProvider).
    api.grant(tableItems(state, ['Query', 'GetItem', 'PutItem', 'DeleteItem', 'BatchWriteItem']));
    api.grant(sendTo(queues.work.queueArn));
    // AWS_IAM: AWS refuses unsigned requests, and callers need lambda:InvokeFunctionUrl on this
    // function. No CORS: the clients are the CLI and SigV4 tools, not browsers on other origins.
    const apiUrl = api.fn.addFunctionUrl({ authType: FunctionUrlAuthType.AWS_IAM });

    // The roles that talk to Kubernetes, each with the group it needs. The API only reads the live
    // workload for `rollouts get` (GET .../workload, shared/app/apiDeps.ts): the read-only group.
    const clusterPrincipals: ClusterPrincipal[] = [
      { name: 'reconcile', role: reconcile.role, kubernetesGroup: KUBERNETES_GROUP },
      { name: 'api', role: api.role, kubernetesGroup: KUBERNETES_VIEW_GROUP },
    ];
    const functions: Record<string, ControllerFunction> = { reconcile, sweep, api };

    if (params.watchProxyMode !== 'none') {
      const onDemand = params.watchProxyMode === 'on-demand';
      const watchProxy = new ControllerFunction(this, 'WatchProxy', {
        name: 'watch-proxy',
        description: onDemand
          ? 'serverless-rollouts: while releases move pods, watch the clusters and send changes to the work queue'
          : 'serverless-rollouts: watch the clusters and send changes to the work queue',
        // It mostly waits on open watch connections: its duration is what it costs (npm run bench).
        // 256 MB is plenty for that; only its cold start would get faster with more.
        memorySize: 256,
        timeout: onDemand ? ON_DEMAND_WATCH_TIMEOUT : WATCH_TIMEOUT,
        // A crashed watcher is replaced by the next launch (on demand: when its heartbeat stops) or
        // schedule; releases move on their re-runs meanwhile. A retry would only add another watcher.
        retryAttempts: 0,
        environment: { ...environment, [ENV.watchMarginSeconds]: String(WATCH_MARGIN_SECONDS) },
      });
      // Query: the rollout catalogue and specs; GetItem: cluster registrations (RegisteredClusterProvider).
      watchProxy.grant(tableItems(state, ['Query', 'GetItem']));
      // Its notices go straight to the work queue (shared/watch/queueSink.ts): SendMessage there, nothing else.
      watchProxy.grant(sendTo(queues.work.queueArn));
      if (onDemand) {
        // The reconcile starts watchers (an asynchronous invoke) and both keep the lease item.
        const watcherSeconds = ON_DEMAND_WATCH_TIMEOUT.toSeconds() - WATCH_MARGIN_SECONDS;
        reconcile.fn.addEnvironment(ENV.watchProxyFunction, watchProxy.fn.functionName);
        reconcile.fn.addEnvironment(ENV.watcherSeconds, String(watcherSeconds));
        reconcile.grant(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [watchProxy.fn.functionArn] }));
        for (const f of [reconcile, watchProxy]) f.grant(watcherLeaseItem(state));
      } else {
        new PeriodicInvocation(this, 'WatchProxySchedule', {
          fn: watchProxy.fn,
          rate: WATCH_RATE,
          description: 'serverless-rollouts watch-proxy (overlapping watchers)',
          deadLetterQueue: deliveryDlq,
          maxEventAge: WATCH_RATE,
        });
      }
      clusterPrincipals.push({ name: 'watch-proxy', role: watchProxy.role, kubernetesGroup: KUBERNETES_GROUP });
      new CfnOutput(this, 'WatchProxyRoleArn', { value: watchProxy.role.roleArn, description: `Map to the Kubernetes group ${KUBERNETES_GROUP} (access entry) in clusters this stack cannot reach` });
      functions['watch-proxy'] = watchProxy;
    }

    new ClusterAccess(this, 'ClusterAccess', { clusters: params.clusters, principals: clusterPrincipals });

    new OperationsAlarms(this, 'Alarms', {
      deadLetterQueues: { work: queues.workDlq, trigger: queues.triggerDlq, delivery: deliveryDlq },
      functions: Object.fromEntries(Object.entries(functions).map(([name, f]) => [name, f.fn])),
      alarmEmail: params.alarmEmail,
    });

    // The functions' Powertools service names (ControllerFunction sets POWERTOOLS_SERVICE_NAME to rollouts-<name>).
    new OperationsDashboard(this, 'Dashboard', { services: { reconcile: 'rollouts-reconcile', api: 'rollouts-api' } });
    if (params.notifications || params.notificationEmail !== undefined) {
      const notifications = new RolloutNotifications(this, 'Notifications', {
        bus: events.bus, eventSource: EVENT_SOURCE, deadLetterQueue: deliveryDlq,
        ...(params.notificationEmail ? { email: params.notificationEmail } : {}),
      });
      new CfnOutput(this, 'NotificationTopicArn', { value: notifications.topic.topicArn, description: 'Approvals needed and failures (EventBridge events); subscribe e-mail, Chatbot or an incident tool' });
    }

    new CfnOutput(this, 'ApiUrl', { value: apiUrl.url, description: 'HTTP API (SigV4, service "lambda")' });
    new CfnOutput(this, 'ApiFunctionArn', { value: api.fn.functionArn, description: 'Callers need lambda:InvokeFunctionUrl and lambda:InvokeFunction on this ARN' });
    new CfnOutput(this, 'ReconcileRoleArn', { value: reconcile.role.roleArn, description: `Map to the Kubernetes group ${KUBERNETES_GROUP} (access entry) in clusters this stack cannot reach` });
    new CfnOutput(this, 'ApiRoleArn', { value: api.role.roleArn, description: `Map to the Kubernetes group ${KUBERNETES_VIEW_GROUP} (access entry, read-only) in clusters this stack cannot reach` });
    new CfnOutput(this, 'EventBusName', { value: events.bus.eventBusName });
    new CfnOutput(this, 'EventBusArn', { value: events.bus.eventBusArn });
    new CfnOutput(this, 'TableName', { value: state.table.tableName, description: 'Retained on cdk destroy' });
    new CfnOutput(this, 'QueueUrl', { value: queues.work.queueUrl });
    new CfnOutput(this, 'TriggerQueueUrl', { value: queues.trigger.queueUrl });
  }
}

function tableItems(state: StateTable, operations: readonly string[]): PolicyStatement {
  return new PolicyStatement({ actions: operations.map((op) => `dynamodb:${op}`), resources: [state.table.tableArn] });
}

/** The watcher lease only (shared/adapters/dynamodb/watcherLease.ts): UpdateItem on items whose partition key is WATCHER. */
function watcherLeaseItem(state: StateTable): PolicyStatement {
  return new PolicyStatement({
    actions: ['dynamodb:UpdateItem'],
    resources: [state.table.tableArn],
    conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['WATCHER'] } },
  });
}

function sendTo(queueArn: string): PolicyStatement {
  return new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queueArn] });
}

/** PutEvents on our bus, for one event source only: no function can forge another's events. */
function putEvents(busArn: string, source: string): PolicyStatement {
  return new PolicyStatement({
    actions: ['events:PutEvents'],
    resources: [busArn],
    conditions: { StringEquals: { 'events:source': source } },
  });
}

/**
 * lambda:InvokeFunction on the functions lambda hooks and gates name (each with its versions and
 * aliases), cloudwatch:DescribeAlarms on the alarms, aps:QueryMetrics on the AMP workspaces.
 */
function grantChecks(fn: ControllerFunction, checks: ChecksParameter): void {
  if (checks.lambdaFunctions.length > 0) {
    fn.grant(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: checks.lambdaFunctions.flatMap((arn) => [arn, `${arn}:*`]) }));
  }
  if (checks.cloudwatchAlarms.length > 0) {
    fn.grant(new PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: [...checks.cloudwatchAlarms] }));
  }
  if (checks.prometheusWorkspaces.length > 0) {
    fn.grant(new PolicyStatement({ actions: ['aps:QueryMetrics'], resources: [...checks.prometheusWorkspaces] }));
  }
  const patterns = [...checks.lambdaFunctions.map((arn) => `${arn}:*`), ...checks.cloudwatchAlarms.filter((arn) => arn.endsWith('*'))];
  for (const pattern of patterns) {
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${pattern}]`,
      reason: /:lambda:/.test(pattern)
        ? 'The versions and aliases of a function the deploy parameter checks.lambdaFunctions names: hooks and gates may invoke a qualifier (a published version or an alias).'
        : 'An alarm name prefix the deploy parameter checks.cloudwatchAlarms names on purpose: the gates read the alarms whose names start with it.',
    });
  }
}
