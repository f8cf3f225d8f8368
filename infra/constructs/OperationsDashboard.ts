// A CloudWatch dashboard built from the functions' EMF metrics (namespace ServerlessRollouts, one
// `service` dimension per function, shared/app/observability.ts): reconciles and their outcomes,
// pass duration, Kubernetes and DynamoDB requests per reconcile, errors, transitions, and the API.
import { Duration } from 'aws-cdk-lib';
import { Dashboard, GraphWidget, MathExpression, Metric, TextWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, transitionMetricName } from '../../shared/app/observability.ts';
import { EVENT } from '../../shared/rollout/events.ts';

export interface OperationsDashboardProps {
  /** The Powertools service names of the functions (POWERTOOLS_SERVICE_NAME), by role. */
  readonly services: { reconcile: string; api: string };
  /** @default 'serverless-rollouts' */
  readonly dashboardName?: string;
}

const PERIOD = Duration.minutes(5);

export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const metric = (service: string, metricName: string, statistic = 'Sum', label?: string): Metric =>
      new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service }, statistic, period: PERIOD, ...(label ? { label } : {}) });
    const reconcile = (name: string, statistic = 'Sum', label?: string) => metric(props.services.reconcile, name, statistic, label);
    // Ids are unique per graph; `passes` is the same metric in each expression.
    const perReconcile = (name: string, label: string): IMetric => {
      const id = name.toLowerCase();
      return new MathExpression({ expression: `${id} / passes`, usingMetrics: { [id]: reconcile(name), passes: reconcile('Reconciles') }, label, period: PERIOD });
    };
    const transitions = [EVENT.ReleaseStarted, EVENT.ReleaseCompleted, EVENT.AwaitingApproval, EVENT.ReleaseFailed, EVENT.RolledBack, EVENT.ReleaseAborted, EVENT.Degraded, EVENT.ClusterUnreachable];

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName ?? 'serverless-rollouts', defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new TextWidget({ markdown: '# serverless-rollouts\nReconcile passes, their cost in Kubernetes and DynamoDB requests, errors and release transitions (EMF metrics of the functions, 5-minute periods). A transition\'s reason is in the event on the bus and in `rollouts history`.', width: 24, height: 2 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Reconcile passes and outcomes', width: 12,
        left: [reconcile('Reconciles'), reconcile('OutcomeProgressed'), reconcile('OutcomeNoop'), reconcile('OutcomeConflict'), reconcile('ReconcileFailures', 'Sum', 'failed passes')],
      }),
      new GraphWidget({
        title: 'Reconcile pass duration (ms)', width: 12,
        left: [reconcile('ReconcileDuration', 'p50', 'p50'), reconcile('ReconcileDuration', 'p95', 'p95'), reconcile('ReconcileDuration', 'Maximum', 'max')],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Kubernetes requests per reconcile', width: 8,
        left: [perReconcile('KubeReads', 'reads / pass'), perReconcile('KubeWrites', 'writes / pass')],
      }),
      new GraphWidget({
        title: 'DynamoDB requests per reconcile', width: 8,
        left: [perReconcile('DynamoReads', 'reads / pass'), perReconcile('DynamoWrites', 'writes / pass')],
      }),
      new GraphWidget({
        title: 'Errors', width: 8,
        left: [reconcile('ReconcileFailures', 'Sum', 'reconcile failures'), reconcile('InvalidMessages', 'Sum', 'invalid messages'), metric(props.services.api, 'ApiServerErrors', 'Sum', 'API 5xx'), metric(props.services.api, 'ApiClientErrors', 'Sum', 'API 4xx')],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Release transitions', width: 16, left: transitions.map((t) => reconcile(transitionMetricName(t), 'Sum', t)) }),
      new GraphWidget({ title: 'API requests', width: 8, left: [metric(props.services.api, 'ApiRequests')] }),
    );
  }
}
