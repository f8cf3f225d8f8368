// The fleet cases of the bad-input battery (issue 24 asks for at least 30), in the format of
// cases.ts: one request a user could send, the answer it must get (status, the field the error names,
// the reason) and, by the battery's rule, nothing changed. Phase B wires them into the battery runner
// (test/integration/badInput.battery.test.ts, with the fixtures of fleetFixtures.ts set up through the
// API) and the README's table; test/unit/fleet/battery.test.ts checks each expected field and reason
// against the pure core today. Pure data: importing it starts nothing.
import type { HttpCase } from '../../../bench/testbed/battery/cases.ts';
import { FLEET_NAMESPACE, fleetDoc, type FleetFixture } from './fleetFixtures.ts';

export const FLEET_CATEGORIES = ['FleetRollout spec (apply)', 'fleet commands', 'cluster labels'] as const;
export type FleetCategory = (typeof FLEET_CATEGORIES)[number];

export interface FleetCase extends Omit<HttpCase, 'category' | 'api'> {
  category: FleetCategory;
  /** Command cases: the fleet (and the state) the request aims at. */
  fixture?: FleetFixture;
}

const F = (name: string, suffix = '') => `/v1/fleets/${name}${suffix}`;
const WAVE0 = 'spec.waves[0]';
const SEL = 'spec.clusterSelector';

const apply = (name: string, spec: Record<string, unknown>, field: string, reason: RegExp, doc?: Record<string, unknown>): FleetCase =>
  ({ category: 'FleetRollout spec (apply)', name, method: 'PUT', path: F('web'), body: doc ?? fleetDoc('web', spec), status: 422, field, reason });
const waves = (...w: unknown[]) => ({ waves: w });
const rest = { name: 'rest' };
const canary = { name: 'canary', selector: { matchLabels: { ring: 'canary' } } };
const template = (spec: Record<string, unknown>) => ({ template: { spec: { strategy: { canary: { steps: [{ replicas: 1 }, { replicas: '100%' }] } }, ...spec } } });
const expr = (e: Record<string, unknown>) => ({ clusterSelector: { matchExpressions: [e] } });
const wl = (w: Record<string, unknown>) => ({ workload: { namespace: FLEET_NAMESPACE, kind: 'Deployment', name: 'web', ...w } });

const SPEC: FleetCase[] = [
  apply('a clusterSelector that selects no registered cluster', { clusterSelector: { matchLabels: { env: 'staging' } } }, SEL, /^selects no cluster \(env=staging\): none of the 3 registered clusters matches \(canary: env=prod,region=eu-west-1,ring=canary; /),
  apply('a wave selector that selects none of the fleet\'s clusters', waves({ name: 'canary', selector: { matchLabels: { ring: 'canry' } } }, rest), `${WAVE0}.selector`, /^selects none of the fleet's 3 clusters \(ring=canry;/),
  apply('overlapping waves: two selectors select one cluster', waves({ name: 'eu', selector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu-west-1'] }] } }, { name: 'prod', selector: { matchLabels: { env: 'prod' } } }), 'spec.waves[1].selector', /^also selects cluster canary, which spec\.waves\[0\] \("eu"\) selects: a cluster belongs to one wave/),
  apply('two waves with the same selector', waves(canary, { name: 'again', selector: { matchExpressions: [{ key: 'ring', operator: 'In', values: ['canary'] }] } }), 'spec.waves[1].selector', /^selects the same clusters as spec\.waves\[0\]\.selector/),
  apply('a percent over 100', waves({ name: 'most', percent: 150 }, rest), `${WAVE0}.percent`, /^must be <= 100%$/),
  apply('a percent of 0', waves({ name: 'none', percent: '0%' }, rest), `${WAVE0}.percent`, /^must be > 0%$/),
  apply('a count of 0', waves({ name: 'none', count: 0 }, rest), `${WAVE0}.count`, /^must be at least 1 cluster$/),
  apply('a wave with both a selector and a count', waves({ ...canary, count: 1 }, rest), WAVE0, /^a wave picks its clusters by one of selector, count or percent \(this one has selector and count\)$/),
  apply('maxConcurrency 0', waves({ ...canary, maxConcurrency: 0 }, rest), `${WAVE0}.maxConcurrency`, /^must be > 0$/),
  apply('maxConcurrency over 100%', waves({ ...canary, maxConcurrency: '150%' }, rest), `${WAVE0}.maxConcurrency`, /^must be <= 100%$/),
  apply('two waves with one name', waves(canary, { name: 'canary' }), 'spec.waves[1].name', /^"canary" already names spec\.waves\[0\]: wave names are unique$/),
  apply('no waves', waves(), 'spec.waves', /^at least one wave is required$/),
  apply('a wave taking every cluster left before another', waves({ name: 'all' }, { name: 'more' }), WAVE0, /takes every cluster left and the waves after it would never get one/),
  apply('a wave the waves before it leave without a cluster', waves({ name: 'most', percent: 100 }, rest), 'spec.waves[1]', /^would get no cluster: the waves before it take all 3 of the fleet's clusters$/),
  apply('an unknown selector operator', expr({ key: 'ring', operator: 'Equals', values: ['canary'] }), `${SEL}.matchExpressions[0].operator`, /^must be one of "In", "NotIn", "Exists", "DoesNotExist"$/),
  apply('operator In with no values', expr({ key: 'ring', operator: 'In', values: [] }), `${SEL}.matchExpressions[0].values`, /^must list at least one value for operator In$/),
  apply('operator Exists with values', expr({ key: 'ring', operator: 'Exists', values: ['canary'] }), `${SEL}.matchExpressions[0].values`, /^must be empty for operator Exists$/),
  apply('a selector label key with a space', { clusterSelector: { matchLabels: { 'ring type': 'canary' } } }, `${SEL}.matchLabels["ring type"]`, /^invalid label key: the name part must consist of alphanumeric characters/),
  apply('a selector label value of 64 characters', { clusterSelector: { matchLabels: { ring: 'c'.repeat(64) } } }, `${SEL}.matchLabels.ring`, /^invalid label value: must be at most 63 characters$/),
  apply('an invalid member spec: a step of 0%', { template: { spec: { strategy: { canary: { steps: [{ replicas: '0%' }] } } } } }, 'spec.template.spec.strategy.canary.steps[0].replicas', /^must be > 0%$/),
  apply('a member spec field that does not exist', template({ progresDeadlineSeconds: 60 }), 'spec.template.spec.progresDeadlineSeconds', /^unknown field$/),
  apply('a workloadRef in the member spec', template({ workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } }), 'spec.template.spec.workloadRef', /^is set by spec\.workload/),
  apply('a member window in an unknown time zone', template({ releaseWindows: [{ days: ['Mon'], start: '09:00', end: '16:00', timeZone: 'Mars/Olympus' }] }), 'spec.template.spec.releaseWindows[0].timeZone', /^unknown IANA time zone/),
  apply('a member window ending before it starts', template({ releaseWindows: [{ days: ['Mon'], start: '16:00', end: '09:00' }] }), 'spec.template.spec.releaseWindows[0].end', /^must be after start \(16:00\)/),
  apply('an unsupported workload kind', wl({ kind: 'Job' }), 'spec.workload.kind', /^unsupported workload kind Job; supported: Deployment, StatefulSet, DaemonSet, CloneSet, AdvancedStatefulSet, AdvancedDaemonSet/),
  apply('a workload namespace that is not a DNS-1123 label', wl({ namespace: 'Shop' }), 'spec.workload.namespace', /DNS-1123 label/),
  apply('a workload without a name', { workload: { namespace: FLEET_NAMESPACE, kind: 'Deployment' } }, 'spec.workload.name', /^required$/),
  apply('maxFailures below 0', { maxFailures: -1 }, 'spec.maxFailures', /^must be >= 0$/),
  apply('an unreachableDeadline of 5 seconds', { unreachableDeadline: '5s' }, 'spec.unreachableDeadline', /^must be at least 30s$/),
  apply('a bake that is not a duration', waves({ ...canary, after: { bake: 'soon' } }, rest), `${WAVE0}.after.bake`, /duration/),
  apply('an after-wave gate with two providers', waves({ ...canary, after: { gates: [{ name: 'errors', http: { url: 'http://127.0.0.1:9/x' }, lambda: { functionName: 'check' } }] } }, rest), `${WAVE0}.after.gates[0]`, /^a gate has exactly one of http, lambda, cloudwatchAlarm, prometheus \(this one has http and lambda\)$/),
  apply('a sortingLabelKey that is not a label key', waves({ ...canary, sortingLabelKey: 'order/by/x' }, rest), `${WAVE0}.sortingLabelKey`, /^must be a label key: a label key has at most one "\/"/),
  apply('no clusterSelector', { clusterSelector: undefined }, SEL, /^required$/),
  apply('a Rollout sent as a FleetRollout', {}, 'kind', /^must be "FleetRollout" \(this document is a Rollout\)$/, { ...fleetDoc('web'), kind: 'Rollout' }),
  apply('the Kruise apiVersion', {}, 'apiVersion', /^must be rollouts\.serverless-rollouts\.io\/v1alpha1$/, { ...fleetDoc('web'), apiVersion: 'rollouts.kruise.io/v1beta1' }),
  apply('a fleet name that is not DNS-1123', {}, 'metadata.name', /DNS-1123 subdomain/, fleetDoc('Web_Fleet')),
];

const cmd = (name: string, fixture: FleetFixture, verb: string, body: unknown, status: number, field: string, reason: RegExp): FleetCase =>
  ({ category: 'fleet commands', name, fixture, method: 'POST', path: F(fixture, `/${verb}`), body, status, field, reason });

const COMMANDS: FleetCase[] = [
  cmd('release with both images and templatePatch', 'idle', 'release', { images: { app: 'registry.invalid/app:v2' }, templatePatch: { metadata: { labels: { a: 'b' } } } }, 400, 'images', /^give at most one of images/),
  cmd('release of an invalid image reference', 'idle', 'release', { images: { app: 'NGINX:@@bad' } }, 400, 'images.app', /reference/),
  cmd('release while a fleet release is in progress', 'running', 'release', { images: { app: 'registry.invalid/app:v3' } }, 409, 'release', /^fleet release f1 is in progress \(wave 1\/2 "canary"\): abort it or wait for it to end$/),
  cmd('release while a fleet release rolls back', 'rolling', 'release', { images: { app: 'registry.invalid/app:v3' } }, 409, 'release', /^fleet release f1 is rolling back: wait for it to end$/),
  cmd('approve with no fleet release', 'idle', 'approve', {}, 409, 'approve', /^no fleet release is waiting for approval$/),
  cmd('approve while the wave is still releasing', 'running', 'approve', {}, 409, 'approve', /^wave "canary" is still releasing \(0 of 1 members done\): approve it once it has released$/),
  cmd('approve of another wave than the one waiting', 'waiting', 'approve', { wave: 'rest' }, 409, 'wave', /^wave "rest" is not the wave waiting for approval \("canary" is\)$/),
  cmd('approve of another fleet release than the one waiting', 'waiting', 'approve', { releaseId: 'f7' }, 409, 'releaseId', /^releaseId f7 is not the fleet release waiting for approval \(f1 is\)$/),
  cmd('approve with a releaseId that is not one', 'waiting', 'approve', { releaseId: 'r1' }, 400, 'releaseId', /^must be a fleet release id such as f3/),
  cmd('pause when already paused', 'paused', 'pause', {}, 409, 'pause', /^the fleet is already paused$/),
  cmd('resume when not paused', 'idle', 'resume', {}, 409, 'resume', /^the fleet is not paused$/),
  cmd('abort with no fleet release in progress', 'idle', 'abort', {}, 409, 'abort', /^no fleet release in progress$/),
  cmd('abort of a fleet release already rolling back', 'rolling', 'abort', {}, 409, 'abort', /^fleet release f1 is already rolling back$/),
  cmd('skip of a cluster not in the fleet release', 'running', 'skip', { cluster: 'ap-1' }, 409, 'cluster', /^cluster ap-1 is not in fleet release f1 \(its clusters: canary, eu-1, us-1\)$/),
  cmd('skip of a member already releasing', 'running', 'skip', { cluster: 'canary' }, 409, 'cluster', /^cluster canary is Releasing in fleet release f1: only a member whose turn has not come can be skipped$/),
  cmd('skip without a cluster', 'running', 'skip', {}, 400, 'cluster', /^required$/),
  cmd('skip of a cluster name with a space', 'running', 'skip', { cluster: 'eu 1' }, 400, 'cluster', /must be 1-100 letters, digits/),
  cmd('pause with an unknown field', 'idle', 'pause', { reason: 'lunch' }, 400, 'reason', /^unknown field$/),
];

const reg = (name: string, body: unknown, field: string, reason: RegExp): FleetCase =>
  ({ category: 'cluster labels', name, method: 'PUT', path: '/v1/clusters/prod', body: { eks: { clusterName: 'prod', region: 'eu-west-1' }, ...(body as object) }, status: 400, field, reason });

const CLUSTERS: FleetCase[] = [
  reg('a label key with two slashes', { labels: { 'a/b/c': 'x' } }, 'labels["a/b/c"]', /^invalid label key: a label key has at most one "\/"/),
  reg('a label value with a space', { labels: { ring: 'canary one' } }, 'labels.ring', /^invalid label value: must be empty or consist of alphanumeric characters/),
  reg('labels as a list', { labels: ['ring=canary'] }, 'labels', /^must be a mapping, not a list$/),
  reg('a label value that is a number', { labels: { order: 1 } }, 'labels.order', /^must be a string, not number 1$/),
  reg('an unknown time zone', { timeZone: 'Europe/Atlantis' }, 'timeZone', /^unknown IANA time zone/),
];

export const FLEET_BATTERY: readonly FleetCase[] = [...SPEC, ...COMMANDS, ...CLUSTERS];
