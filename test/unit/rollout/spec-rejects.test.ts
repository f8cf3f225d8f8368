import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRollout } from '../../../shared/rollout/spec.ts';
import type { Doc } from './specFixtures.ts';
import { edited, issuesOf, kruiseDoc, ourDoc, releaseWindow } from './specFixtures.ts';

const ctx = { cluster: 'c' };

const steps = (...s: unknown[]) => (d: Doc) => (d.spec.strategy.canary.steps = s as Record<string, unknown>[]);
const canary = (over: Record<string, unknown>) => (d: Doc) => Object.assign(d.spec.strategy.canary, over);
const windows = (...w: unknown[]) => (d: Doc) => (d.spec.releaseWindows = w);
const STEP0 = 'spec.strategy.canary.steps[0]';

/** [case, document, path of the single expected issue, reason pattern] */
const STYLE = 'metadata.annotations["rollouts.kruise.io/rolling-style"]';
const cases: [string, Doc, string, RegExp][] = [
  ['an unknown deploymentStrategy', edited(ourDoc, (d) => (d.spec.deploymentStrategy = 'Recreate')), 'spec.deploymentStrategy', /must be one of "MinReadySeconds", "Partition"/],
  ['deploymentStrategy in a Kruise document', edited(kruiseDoc, (d) => (d.spec.deploymentStrategy = 'Partition')), 'spec.deploymentStrategy', /serverless-rollouts extension/],
  ['deploymentStrategy for a StatefulSet', edited(ourDoc, (d) => { d.spec.deploymentStrategy = 'Partition'; d.spec.workloadRef.kind = 'StatefulSet'; }), 'spec.deploymentStrategy', /applies to Deployments only/],
  ['Kruise\'s canary rolling style without enableExtraWorkloadForCanary', edited(kruiseDoc, (d) => (d.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'canary' })), STYLE, /enableExtraWorkloadForCanary is not true/],
  ['an unknown rolling style', edited(kruiseDoc, (d) => (d.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'fast' })), STYLE, /must be "partition"/],
  ['a rolling style that contradicts deploymentStrategy', edited(ourDoc, (d) => { d.spec.deploymentStrategy = 'MinReadySeconds'; d.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'partition' }; }), 'spec.deploymentStrategy', /asks for Partition; keep one/],
  ['replicas "0%"', edited(kruiseDoc, steps({ replicas: '0%' })), `${STEP0}.replicas`, /must be > 0%/],
  ['replicas over 100%', edited(kruiseDoc, steps({ replicas: '150%' })), `${STEP0}.replicas`, /must be <= 100%/],
  ['replicas int 0', edited(kruiseDoc, steps({ replicas: 0 })), `${STEP0}.replicas`, /must be > 0/],
  ['replicas negative int', edited(kruiseDoc, steps({ replicas: -2 })), `${STEP0}.replicas`, /must be > 0/],
  ['replicas string without %', edited(kruiseDoc, steps({ replicas: '50' })), `${STEP0}.replicas`, /needs "%"/],
  ['replicas not an integer', edited(kruiseDoc, steps({ replicas: 1.5 })), `${STEP0}.replicas`, /integer or a percent/],
  ['replicas fractional percent', edited(kruiseDoc, steps({ replicas: '12.5%' })), `${STEP0}.replicas`, /whole-number percent/],
  ['replicas percent with a leading zero', edited(kruiseDoc, steps({ replicas: '050%' })), `${STEP0}.replicas`, /leading zeros/],
  ['replicas missing', edited(kruiseDoc, steps({ pause: {} })), `${STEP0}.replicas`, /^required$/],
  ['replicas of the wrong type', edited(kruiseDoc, steps({ replicas: true })), `${STEP0}.replicas`, /integer or a percent/],
  ['decreasing percent steps', edited(kruiseDoc, steps({ replicas: '50%' }, { replicas: '20%' })), 'spec.strategy.canary.steps[1].replicas', /previous step \(50%\)/],
  ['decreasing int steps', edited(kruiseDoc, steps({ replicas: 1 }, { replicas: 4 }, { replicas: 3 })), 'spec.strategy.canary.steps[2].replicas', /previous step \(4\)/],
  ['zero steps', edited(kruiseDoc, steps()), 'spec.strategy.canary.steps', /at least one step/],
  ['more than 50 steps', edited(kruiseDoc, steps(...Array.from({ length: 51 }, () => ({ replicas: 1 })))), 'spec.strategy.canary.steps', /at most 50/],
  ['negative pause duration', edited(kruiseDoc, steps({ replicas: 1, pause: { duration: -1 } })), `${STEP0}.pause.duration`, />= 0/],
  ['fractional pause duration', edited(kruiseDoc, steps({ replicas: 1, pause: { duration: 1.5 } })), `${STEP0}.pause.duration`, /must be an integer/],
  ['failureThreshold over 100%', edited(kruiseDoc, canary({ failureThreshold: '101%' })), 'spec.strategy.canary.failureThreshold', /between 0% and 100%/],
  ['failureThreshold negative int', edited(kruiseDoc, canary({ failureThreshold: -1 })), 'spec.strategy.canary.failureThreshold', />= 0/],
  ['missing workloadRef', edited(kruiseDoc, (d) => delete (d.spec as Record<string, unknown>).workloadRef), 'spec.workloadRef', /^required$/],
  ['missing workloadRef name', edited(kruiseDoc, (d) => delete d.spec.workloadRef.name), 'spec.workloadRef.name', /^required$/],
  ['workloadRef name not DNS-1123', edited(kruiseDoc, (d) => (d.spec.workloadRef.name = 'Web_1')), 'spec.workloadRef.name', /DNS-1123 subdomain/],
  ['unsupported workload kind', edited(kruiseDoc, (d) => (d.spec.workloadRef.kind = 'Job')), 'spec.workloadRef.kind', /^unsupported workloadRef apps\/v1 Job/],
  ['an old Kruise Advanced StatefulSet apiVersion', edited(kruiseDoc, (d) => Object.assign(d.spec.workloadRef, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'StatefulSet' })), 'spec.workloadRef.apiVersion', /^unsupported workloadRef apps\.kruise\.io\/v1alpha1 StatefulSet; supported: .*apps\.kruise\.io\/v1beta1 StatefulSet/],
  ['onDeletePolicy of a kind that has no OnDelete', edited(ourDoc, (d) => (d.spec.onDeletePolicy = 'Manual')), 'spec.onDeletePolicy', /applies to workloads that can use updateStrategy OnDelete \(StatefulSet, DaemonSet, AdvancedStatefulSet, AdvancedDaemonSet\); a Deployment has no OnDelete strategy/],
  ['onDeletePolicy not a policy', edited(ourDoc, (d) => Object.assign(d.spec, { onDeletePolicy: 'ByHand', workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' } })), 'spec.onDeletePolicy', /must be one of "Automatic", "Manual"/],
  ['onDeletePolicy in a Kruise document', edited(kruiseDoc, (d) => Object.assign(d.spec, { onDeletePolicy: 'Manual', workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' } })), 'spec.onDeletePolicy', /./],
  ['missing metadata.name', edited(kruiseDoc, (d) => delete d.metadata.name), 'metadata.name', /^required$/],
  ['metadata.name not DNS-1123', edited(kruiseDoc, (d) => (d.metadata.name = 'Web')), 'metadata.name', /DNS-1123/],
  ['namespace not a DNS-1123 label', edited(kruiseDoc, (d) => (d.metadata.namespace = 'a.b')), 'metadata.namespace', /DNS-1123 label/],
  ['unknown time zone', edited(ourDoc, windows(releaseWindow({ timeZone: 'Mars/Olympus' }))), 'spec.releaseWindows[0].timeZone', /unknown IANA time zone/],
  ['window end before start', edited(ourDoc, windows(releaseWindow({ start: '22:00', end: '02:00' }))), 'spec.releaseWindows[0].end', /must be after start \(22:00\)/],
  ['window end equal to start', edited(ourDoc, windows(releaseWindow({ start: '10:00', end: '10:00' }))), 'spec.releaseWindows[0].end', /must be after start/],
  ['window start not HH:MM', edited(ourDoc, windows(releaseWindow({ start: '9:00' }))), 'spec.releaseWindows[0].start', /HH:MM/],
  ['window start at 24:00', edited(ourDoc, windows(releaseWindow({ start: '24:00' }))), 'spec.releaseWindows[0].start', /HH:MM/],
  ['window end past 24:00', edited(ourDoc, windows(releaseWindow({ end: '24:30' }))), 'spec.releaseWindows[0].end', /HH:MM/],
  ['unknown weekday', edited(ourDoc, windows(releaseWindow({ days: ['Mon', 'Funday'] }))), 'spec.releaseWindows[0].days[1]', /must be one of "Mon"/],
  ['empty days', edited(ourDoc, windows(releaseWindow({ days: [] }))), 'spec.releaseWindows[0].days', /at least one day/],
  ['startAt not an instant', edited(ourDoc, (d) => (d.spec.startAt = 'tomorrow 9am')), 'spec.startAt', /RFC 3339/],
  ['startAt without an offset', edited(ourDoc, (d) => (d.spec.startAt = '2026-03-02T09:00:00')), 'spec.startAt', /RFC 3339/],
  ['startAt on a day that does not exist', edited(ourDoc, (d) => (d.spec.startAt = '2026-02-30T09:00:00Z')), 'spec.startAt', /RFC 3339/],
  ['progressDeadlineSeconds 0', edited(ourDoc, (d) => (d.spec.progressDeadlineSeconds = 0)), 'spec.progressDeadlineSeconds', /> 0/],
  ['rollbackOnFailure not a boolean', edited(ourDoc, (d) => (d.spec.rollbackOnFailure = 'yes')), 'spec.rollbackOnFailure', /true or false/],
  ['an unknown field', edited(kruiseDoc, canary({ maxSurge: 1 })), 'spec.strategy.canary.maxSurge', /^unknown field$/],
  ['trafficRoutingRef', edited(kruiseDoc, canary({ trafficRoutingRef: 'mse' })), 'spec.strategy.canary.trafficRoutingRef', /not supported by serverless-rollouts \(Kruise TrafficRouting objects/],
  ['disableGenerateCanaryService', edited(kruiseDoc, canary({ disableGenerateCanaryService: true })), 'spec.strategy.canary.disableGenerateCanaryService', /not supported by serverless-rollouts/],
  ['customNetworkRefs beside a gateway', edited(kruiseDoc, canary({ trafficRoutings: [{ service: 'web', gateway: { httpRouteName: 'web' }, customNetworkRefs: [{ apiVersion: 'networking.istio.io/v1alpha3', kind: 'VirtualService', name: 'vs' }] }] })), 'spec.strategy.canary.trafficRoutings[0].customNetworkRefs', /not supported by serverless-rollouts \(Kruise custom network providers/],
  ['rollback-in-batch annotation', edited(kruiseDoc, (d) => (d.metadata.annotations = { 'rollouts.kruise.io/rollback-in-batch': 'true' })), 'metadata.annotations["rollouts.kruise.io/rollback-in-batch"]', /not supported/],
  ['no strategy.canary', edited(kruiseDoc, (d) => (d.spec.strategy = { paused: false } as never)), 'spec.strategy.canary', /^required$/],
  ['our extension in a Kruise document', edited(kruiseDoc, (d) => (d.spec.progressDeadlineSeconds = 60)), 'spec.progressDeadlineSeconds', /serverless-rollouts extension, use apiVersion rollouts\.serverless-rollouts\.io\/v1alpha1/],
  ['an unknown apiVersion', edited(kruiseDoc, (d) => (d.apiVersion = 'argoproj.io/v1alpha1')), 'apiVersion', /must be rollouts\.serverless-rollouts\.io\/v1alpha1 or rollouts\.kruise\.io\/v1beta1/],
  ['Kruise v1alpha1', edited(kruiseDoc, (d) => (d.apiVersion = 'rollouts.kruise.io/v1alpha1')), 'apiVersion', /convert to rollouts\.kruise\.io\/v1beta1/],
  ['another kind of object', edited(kruiseDoc, (d) => (d.kind = 'Deployment')), 'kind', /this document is a Deployment/],
];

describe('parseRollout rejects', () => {
  for (const [name, doc, path, reason] of cases) {
    test(`${name}, naming ${path}`, () => {
      const issues = issuesOf(doc);
      assert.equal(issues.length, 1, JSON.stringify(issues));
      assert.equal(issues[0]?.path, path);
      assert.match(issues[0]?.reason ?? '', reason);
    });
  }

  test('a document that is not a mapping', () => {
    assert.deepEqual(issuesOf(['a']).map((i) => i.path), ['(document)']);
  });

  test('listing every issue of a document at once, sorted by path', () => {
    const doc = edited(ourDoc, (d) => {
      d.metadata.name = 'Bad_Name';
      d.spec.workloadRef.kind = 'Job';
      steps({ replicas: '50%' }, { replicas: '20%', pause: { duration: -5 } }, { replicas: '150%' })(d);
      d.spec.releaseWindows = [releaseWindow({ timeZone: 'Nowhere/Land', start: '18:00', end: '08:00' })];
    });
    assert.deepEqual(issuesOf(doc).map((i) => i.path), [
      'metadata.name',
      'spec.releaseWindows[0].end',
      'spec.releaseWindows[0].timeZone',
      'spec.strategy.canary.steps[1].pause.duration',
      'spec.strategy.canary.steps[1].replicas',
      'spec.strategy.canary.steps[2].replicas',
      'spec.workloadRef.kind',
    ]);
  });

  test('the error message carries every "<path>: <reason>"', () => {
    const doc = edited(kruiseDoc, steps({ replicas: 0 }, { replicas: '0%' }));
    assert.throws(() => parseRollout(doc, ctx), {
      name: 'ValidationError',
      message: 'spec.strategy.canary.steps[0].replicas: must be > 0; spec.strategy.canary.steps[1].replicas: must be > 0%',
    });
  });
});
