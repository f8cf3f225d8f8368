// Hooks, gates and the per-pod update timeout in a Rollout document: what our apiVersion accepts
// and normalises, what a Kruise document is refused for, and the reason each bad field gets.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRollout, ROLLOUTS_API_VERSION } from '../../../shared/rollout/spec.ts';
import { edited, issuesOf, kruiseDoc, ourDoc, type Doc } from './specFixtures.ts';

const ctx = { cluster: 'c' };
const GATE0 = 'spec.strategy.canary.steps[0].gates[0]';


const withGate = (gate: Record<string, unknown>) => (d: Doc) => ((d.spec.strategy.canary.steps[0] as Record<string, unknown>).gates = [gate]);
const prom = (over: Record<string, unknown> = {}) => ({ name: 'errors', prometheus: { url: 'http://127.0.0.1:9090', query: 'app_errors_ratio', condition: '< 0.05', ...over } });
const statefulSet = (d: Doc) => (d.spec.workloadRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'mysql' });

describe('Rollout documents with hooks and gates', () => {
  test('our apiVersion normalises every gate kind with Argo-like defaults', () => {
    const doc = edited(ourDoc, (d) => {
      (d.spec.strategy.canary.steps[0] as Record<string, unknown>).gates = [
        { name: 'smoke', http: { url: 'https://checks.example.com/ready', headers: { 'X-Team': 'web' } } },
        { name: 'verdict', lambda: { functionName: 'arn:aws:lambda:eu-west-1:123456789012:function:canary-verdict:live' }, interval: '30s', count: 3 },
        { name: 'alarms', cloudwatchAlarm: { alarmNames: ['web-5xx', 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:edge latency'] } },
        { ...prom({ url: 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1234', sigv4: {} }), interval: '1m', count: 5, failureLimit: 2, timeout: '5s', initialDelay: 90 },
      ];
    });
    const gates = parseRollout(doc, ctx).steps[0]?.gates ?? [];
    assert.deepEqual(gates.map((g) => [g.name, g.intervalSeconds, g.count, g.failureLimit, g.consecutiveErrorLimit, g.timeoutSeconds, g.initialDelaySeconds]), [
      ['smoke', 60, 1, 0, 4, 10, 0],
      ['verdict', 30, 3, 0, 4, 10, 0],
      ['alarms', 60, 1, 0, 4, 10, 0],
      ['errors', 60, 5, 2, 4, 5, 90],
    ]);
    assert.deepEqual(gates[0]?.provider, { kind: 'http', url: 'https://checks.example.com/ready', headers: { 'X-Team': 'web' } });
    assert.deepEqual(gates[1]?.provider, { kind: 'lambda', functionName: 'arn:aws:lambda:eu-west-1:123456789012:function:canary-verdict', qualifier: 'live', region: 'eu-west-1' });
    assert.deepEqual(gates[2]?.provider, { kind: 'cloudwatchAlarm', alarms: [{ name: 'web-5xx', region: null }, { name: 'edge latency', region: 'us-east-1' }] });
    assert.deepEqual(gates[3]?.provider, {
      kind: 'prometheus', url: 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1234', query: 'app_errors_ratio',
      condition: { op: '<', value: 0.05 }, sigv4: { region: 'eu-west-1' },
    });
    assert.equal(parseRollout(doc, ctx).steps[1]?.gates, undefined, 'a step without gates has none');
  });

  test('seed 003\'s MySQL read-only pair and a per-pod timeout', () => {
    const spec = parseRollout(edited(ourDoc, (d) => {
      statefulSet(d);
      d.spec.podUpdateTimeout = '5m';
      d.spec.lifecycle = {
        preUpdate: { exec: { command: ['/bin/sh', '-c', "mysql -e 'SET GLOBAL read_only=ON'"], container: 'mysql' } },
        postUpdate: { exec: { command: ['/bin/sh', '-c', "mysql -e 'SET GLOBAL read_only=OFF'"] }, retries: 5, backoff: '2s', timeout: 15 },
      };
    }), ctx);
    assert.equal(spec.podUpdateTimeoutSeconds, 300);
    assert.deepEqual(spec.lifecycle, {
      preUpdate: { target: { kind: 'exec', command: ['/bin/sh', '-c', "mysql -e 'SET GLOBAL read_only=ON'"], container: 'mysql' }, timeoutSeconds: 15, retries: 3, backoffSeconds: 5 },
      postUpdate: { target: { kind: 'exec', command: ['/bin/sh', '-c', "mysql -e 'SET GLOBAL read_only=OFF'"], container: null }, timeoutSeconds: 15, retries: 5, backoffSeconds: 2 },
    });
  });

  test('a Deployment takes a preUpdate with the Partition strategy, and a postUpdate with either', () => {
    assert.ok(parseRollout(edited(ourDoc, (d) => { d.spec.deploymentStrategy = 'Partition'; d.spec.lifecycle = { preUpdate: { http: { url: 'http://x' } } }; }), ctx).lifecycle?.preUpdate);
    assert.ok(parseRollout(edited(ourDoc, (d) => (d.spec.lifecycle = { postUpdate: { http: { url: 'http://x' } } })), ctx).lifecycle?.postUpdate);
  });

  test('a Rollout without them has none', () => {
    const spec = parseRollout(ourDoc(), ctx);
    assert.equal(spec.lifecycle, undefined);
    assert.equal(spec.podUpdateTimeoutSeconds, undefined);
  });

  const refused: [string, Doc, string, RegExp][] = [
    ['gates in a Kruise document', edited(kruiseDoc, withGate(prom())), 'spec.strategy.canary.steps[0].gates', new RegExp(`serverless-rollouts extension, use apiVersion ${ROLLOUTS_API_VERSION.replace(/\./g, '\\.')}`)],
    ['lifecycle in a Kruise document', edited(kruiseDoc, (d) => (d.spec.lifecycle = { preUpdate: { http: { url: 'http://x' } } })), 'spec.lifecycle', /serverless-rollouts extension/],
    ['podUpdateTimeout in a Kruise document', edited(kruiseDoc, (d) => (d.spec.podUpdateTimeout = '5m')), 'spec.podUpdateTimeout', /serverless-rollouts extension/],
    ['PromQL that does not parse', edited(ourDoc, withGate(prom({ query: 'sum(rate(http_errors_total[5m])' }))), `${GATE0}.prometheus.query`, /does not parse as PromQL: unexpected end of query at character 32/],
    ['PromQL with a stray token', edited(ourDoc, withGate(prom({ query: 'rate(x[5m)' }))), `${GATE0}.prometheus.query`, /unexpected "\)" at character 10/],
    ['a condition that is not a comparison', edited(ourDoc, withGate(prom({ condition: 'below 0.05' }))), `${GATE0}.prometheus.condition`, /must be a comparison and a number, such as "< 0.05"/],
    ['a bad URL', edited(ourDoc, withGate(prom({ url: 'prometheus:9090/api' }))), `${GATE0}.prometheus.url`, /must be an http:\/\/ or https:\/\/ URL, not prometheus:/],
    ['a relative URL', edited(ourDoc, withGate({ name: 'smoke', http: { url: '/ready' } })), `${GATE0}.http.url`, /must be an absolute http:\/\/ or https:\/\/ URL/],
    ['a URL carrying credentials', edited(ourDoc, withGate({ name: 'smoke', http: { url: 'https://bob:secret@checks.example.com' } })), `${GATE0}.http.url`, /must not carry credentials/],
    ['sigv4 with neither region nor AMP URL', edited(ourDoc, withGate(prom({ sigv4: {} }))), `${GATE0}.prometheus.sigv4.region`, /required unless url is an Amazon Managed Prometheus workspace URL/],
    ['an alarm ARN of the wrong shape', edited(ourDoc, withGate({ name: 'a', cloudwatchAlarm: { alarmNames: ['arn:aws:cloudwatch:eu-west-1:123456789012:dashboard/web'] } })), `${GATE0}.cloudwatchAlarm.alarmNames[0]`, /unknown alarm ARN format: must be arn:aws:cloudwatch:<region>:<account>:alarm:<name>/],
    ['an alarm name with a newline', edited(ourDoc, withGate({ name: 'a', cloudwatchAlarm: { alarmNames: ['web\n5xx'] } })), `${GATE0}.cloudwatchAlarm.alarmNames[0]`, /must be a CloudWatch alarm name/],
    ['no alarms', edited(ourDoc, withGate({ name: 'a', cloudwatchAlarm: { alarmNames: [] } })), `${GATE0}.cloudwatchAlarm.alarmNames`, /name at least one alarm/],
    ['a gate of two kinds', edited(ourDoc, withGate({ ...prom(), http: { url: 'http://x' } })), GATE0, /exactly one of http, lambda, cloudwatchAlarm, prometheus \(this one has http and prometheus\)/],
    ['a gate of no kind', edited(ourDoc, withGate({ name: 'empty' })), GATE0, /\(this one has none\)/],
    ['a gate name that is not a label', edited(ourDoc, withGate({ ...prom(), name: 'Error Rate' })), `${GATE0}.name`, /DNS-1123 label/],
    ['two gates with one name', edited(ourDoc, (d) => ((d.spec.strategy.canary.steps[0] as Record<string, unknown>).gates = [prom(), prom()])), 'spec.strategy.canary.steps[0].gates[1].name', /"errors" is used twice in this step/],
    ['an interval that is no duration', edited(ourDoc, withGate({ ...prom(), interval: 'often' })), `${GATE0}.interval`, /must be a duration such as "30s"/],
    ['a zero count', edited(ourDoc, withGate({ ...prom(), count: 0 })), `${GATE0}.count`, /at least 1 check/],
    ['a negative failureLimit', edited(ourDoc, withGate({ ...prom(), failureLimit: -1 })), `${GATE0}.failureLimit`, />= 0/],
    ['a check timeout beyond a reconcile', edited(ourDoc, withGate({ ...prom(), timeout: '5m' })), `${GATE0}.timeout`, /at most 20s/],
    ['a Lambda name of the wrong shape', edited(ourDoc, withGate({ name: 'v', lambda: { functionName: 'my function' } })), `${GATE0}.lambda.functionName`, /must be a Lambda function name/],
    ['an unknown gate field', edited(ourDoc, withGate({ ...prom(), successCondition: 'result[0] < 0.05' })), `${GATE0}.successCondition`, /^unknown field$/],
    ['a hook of no kind', edited(ourDoc, (d) => (d.spec.lifecycle = { preUpdate: { retries: 2 } })), 'spec.lifecycle.preUpdate', /exactly one of exec, http, lambda \(this one has none\)/],
    ['an exec hook without a program', edited(ourDoc, (d) => (d.spec.lifecycle = { postUpdate: { exec: { command: [] } } })), 'spec.lifecycle.postUpdate.exec.command', /must name the program to run/],
    ['an unknown hook phase', edited(ourDoc, (d) => (d.spec.lifecycle = { preDelete: { http: { url: 'http://x' } } })), 'spec.lifecycle.preDelete', /^unknown field$/],
    ['too many retries', edited(ourDoc, (d) => (d.spec.lifecycle = { preUpdate: { http: { url: 'http://x' }, retries: 99 } })), 'spec.lifecycle.preUpdate.retries', /at most 20/],
    ['a bad header name', edited(ourDoc, (d) => (d.spec.lifecycle = { preUpdate: { http: { url: 'http://x', headers: { 'Bad Header': 'x' } } } })), 'spec.lifecycle.preUpdate.http.headers', /"Bad Header" is not a valid HTTP header name/],
    ['a Deployment preUpdate without the Partition strategy', edited(ourDoc, (d) => (d.spec.lifecycle = { preUpdate: { http: { url: 'http://x' } } })), 'spec.lifecycle.preUpdate', /on a Deployment needs spec\.deploymentStrategy: Partition/],
    ['a CloneSet preUpdate', edited(ourDoc, (d) => { d.spec.workloadRef = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' }; d.spec.lifecycle = { preUpdate: { http: { url: 'http://x' } } }; }), 'spec.lifecycle.preUpdate', /not supported for a CloneSet: its controller chooses which pods a batch updates.*OpenKruise's own lifecycle\.preUpdate/],
    ['a zero podUpdateTimeout', edited(ourDoc, (d) => (d.spec.podUpdateTimeout = '0s')), 'spec.podUpdateTimeout', /at least 1s/],
  ];
  for (const [name, doc, path, reason] of refused) {
    test(`refuses ${name}, naming the field`, () => {
      const issues = issuesOf(doc);
      const mine = issues.find((i) => i.path === path);
      assert.ok(mine, `expected an issue at ${path}, got ${JSON.stringify(issues)}`);
      assert.match(mine.reason, reason);
    });
  }
});
