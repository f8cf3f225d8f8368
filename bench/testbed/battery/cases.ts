// The bad-input battery's case table (test/integration/badInput.battery.test.ts runs it; the
// README's "Bad input" table is generated from it by batteryTable(), kept exact by
// test/unit/robustnessReadme.test.ts). Each case is one request a user could send, through the HTTP
// API or the CLI, with the answer it must get: the status or exit code, and an error naming the field
// with the reason. The runner also checks that nothing changed. Pure data: importing it starts nothing.
import { FIXTURES, NAMESPACE, rolloutDocument, type FixtureName } from './fixtures.ts';

export const CATEGORIES = [
  'Rollout spec (apply)',
  'command bodies',
  'cluster registration',
  'query and path parameters',
  'CLI flags and messages',
  'live-workload checks',
] as const;
export type Category = (typeof CATEGORIES)[number];

interface Expected {
  /** The field the error must name: an `issues[].path` of the answer, or (answers without issues) a word of its message. */
  field: string;
  /** What the reason (or the message) must say. */
  reason: RegExp;
}

export interface HttpCase extends Expected {
  category: Category;
  name: string;
  /** Which API answers (default local: serves only its own cluster; deployed: registered clusters). */
  api?: 'local' | 'deployed';
  method: string;
  path: string;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
}

export interface CliCase extends Expected {
  category: Category;
  name: string;
  /** `{home}` is the CLI's data directory, where `files` are written. */
  argv: string[];
  files?: Record<string, string>;
  exit: number;
}

export type BatteryCase = HttpCase | CliCase;

const C = 'test';
const R = (name: FixtureName | string, suffix = '') => `/v1/rollouts/${C}/${NAMESPACE}/${name}${suffix}`;
const doc = rolloutDocument;
const steps = (...s: unknown[]) => doc('web', { steps: s });
const STEP0 = 'spec.strategy.canary.steps[0]';
const window = (w: Record<string, unknown>) => doc('web', { spec: { releaseWindows: [{ days: ['Mon'], start: '09:00', end: '17:00', timeZone: 'Europe/Paris', ...w }] } });

const apply = (name: string, body: unknown, status: number, field: string, reason: RegExp, extra: Partial<HttpCase> = {}): HttpCase =>
  ({ category: 'Rollout spec (apply)', name, method: 'PUT', path: R('web'), body, status, field, reason, ...extra });

const SPEC: HttpCase[] = [
  apply('malformed JSON', '{"apiVersion": "rollouts.serverless-rollouts.io/v1alpha1", ', 400, '(body)', /malformed JSON/),
  apply('malformed YAML', 'kind: Rollout\nspec: [unclosed\n', 400, '(body)', /YAML syntax error/, { headers: { 'content-type': 'application/yaml' } }),
  apply('two YAML documents in one apply', `${JSON.stringify(doc('web'))}\n---\n${JSON.stringify(doc('web'))}\n`, 400, '(body)', /exactly one YAML document \(found 2\)/, { headers: { 'content-type': 'application/yaml' } }),
  apply('an empty body', '', 400, '(body)', /required: the Rollout document/),
  apply('a JSON list instead of a document', [doc('web')], 422, '(document)', /mapping/),
  apply('{"yaml": …} holding a number', { yaml: 42 }, 400, 'yaml', /must be a string/),
  apply('steps of the wrong type (a string)', doc('web', { canary: { steps: '1,50%,100%' } }), 422, 'spec.strategy.canary.steps', /list/),
  apply('replicas of the wrong type (a boolean)', steps({ replicas: true }), 422, `${STEP0}.replicas`, /integer or a percent/),
  apply('an unknown field under canary', doc('web', { canary: { steps: [{ replicas: '100%' }], maxSurge: 1 } }), 422, 'spec.strategy.canary.maxSurge', /^unknown field$/),
  apply('an unknown field under spec (a typo)', doc('web', { spec: { progresDeadlineSeconds: 60 } }), 422, 'spec.progresDeadlineSeconds', /^unknown field$/),
  apply('a step of 0%', steps({ replicas: '0%' }, { replicas: '100%' }), 422, `${STEP0}.replicas`, /must be > 0%/),
  apply('a step over 100%', steps({ replicas: '150%' }), 422, `${STEP0}.replicas`, /must be <= 100%/),
  apply('decreasing steps', steps({ replicas: '50%' }, { replicas: '20%' }), 422, 'spec.strategy.canary.steps[1].replicas', /previous step \(50%\)/),
  apply('no steps', steps(), 422, 'spec.strategy.canary.steps', /at least one step/),
  apply('51 steps', steps(...Array.from({ length: 51 }, () => ({ replicas: 1 }))), 422, 'spec.strategy.canary.steps', /at most 50 steps/),
  apply('a name that is not DNS-1123', doc('Web_1'), 422, 'metadata.name', /DNS-1123 subdomain/, { path: R('web') }),
  apply('a name longer than 253 characters', doc('a'.repeat(254)), 422, 'metadata.name', /at most 253 characters/),
  apply('a unicode name', doc('wéb'), 422, 'metadata.name', /DNS-1123 subdomain/),
  apply('a document of 5 MB', JSON.stringify({ ...doc('web'), padding: 'x'.repeat(5 * 1024 * 1024) }), 413, 'body', /larger than the limit of 262144 bytes/),
  apply('an unknown workload kind', doc('web', { workloadRef: { apiVersion: 'batch/v1', kind: 'Job', name: 'web' } }), 422, 'spec.workloadRef.kind', /unsupported workloadRef batch\/v1 Job/),
  apply('an unknown time zone', window({ timeZone: 'Mars/Olympus' }), 422, 'spec.releaseWindows[0].timeZone', /unknown IANA time zone/),
  apply('a window ending before it starts', window({ start: '22:00', end: '02:00' }), 422, 'spec.releaseWindows[0].end', /must be after start \(22:00\)/),
  apply('an unknown weekday', window({ days: ['Mon', 'Funday'] }), 422, 'spec.releaseWindows[0].days[1]', /must be one of/),
  apply('startAt that is not an instant', doc('web', { spec: { startAt: 'tomorrow 9am' } }), 422, 'spec.startAt', /RFC 3339/),
  apply('progressDeadlineSeconds of 0', doc('web', { spec: { progressDeadlineSeconds: 0 } }), 422, 'spec.progressDeadlineSeconds', /> 0 seconds/),
  apply('a metadata.name other than the URL\'s', doc('api'), 422, 'metadata.name', /is "api" but the URL names "web"/),
  apply('a metadata.namespace other than the URL\'s', doc('web', { namespace: 'other' }), 422, 'metadata.namespace', /is "other" but the URL names "battery"/),
  apply('kind other than Rollout', { ...doc('web'), kind: 'Deployment' }, 422, 'kind', /must be "Rollout"/),
  apply('an unknown apiVersion', { ...doc('web'), apiVersion: 'rollouts.example.com/v9' }, 422, 'apiVersion', /rollouts\.kruise\.io\/v1beta1/),
  apply('another number of steps while a release runs', doc('busy', { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] }), 422, 'spec.strategy.canary.steps', /number of steps \(3\) cannot change while a release is in progress/, { path: R('busy') }),
  apply('another workload while a release runs', doc('busy', { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } }), 422, 'spec.workloadRef', /cannot change while a release is in progress/, { path: R('busy') }),
  apply('a rollout that is being deleted', doc('leaving'), 409, 'leaving', /is being deleted; apply again once it is gone/, { path: R('leaving') }),
];

const cmd = (name: string, target: FixtureName | string, verb: string, body: unknown, status: number, field: string, reason: RegExp): HttpCase =>
  ({ category: 'command bodies', name, method: verb === 'delete' ? 'DELETE' : 'POST', path: verb === 'delete' ? R(target) : R(target, `/${verb}`), body, status, field, reason });

const COMMANDS: HttpCase[] = [
  cmd('release with neither images nor templatePatch', 'web', 'release', {}, 400, 'images', /exactly one of images .* or templatePatch/),
  cmd('release with both images and templatePatch', 'web', 'release', { images: { app: 'registry.invalid/app:v2' }, templatePatch: { metadata: { labels: { a: 'b' } } } }, 400, 'images', /exactly one of images/),
  cmd('release with a container name that is not DNS-1123', 'web', 'release', { images: { App_1: 'registry.invalid/app:v2' } }, 400, 'images.App_1', /DNS-1123 label/),
  cmd('release of an invalid image reference', 'web', 'release', { images: { app: 'NGINX:@@bad' } }, 400, 'images.app', /reference/),
  cmd('release of an empty image', 'web', 'release', { images: { app: '' } }, 400, 'images.app', /^must not be empty$/),
  cmd('release with a misspelt field', 'web', 'release', { image: { app: 'registry.invalid/app:v2' } }, 400, 'image', /^unknown field$/),
  cmd('release with startAt that is not RFC 3339', 'web', 'release', { images: { app: 'registry.invalid/app:v2' }, startAt: 'tomorrow' }, 400, 'startAt', /RFC 3339/),
  cmd('release with images as a string', 'web', 'release', { images: 'app=registry.invalid/app:v2' }, 400, 'images', /^must be a mapping, not the string "app=registry.invalid\/app:v2"$/),
  cmd('release with a templatePatch that is a list', 'web', 'release', { templatePatch: [{ op: 'replace' }] }, 400, 'templatePatch', /^must be a mapping, not a list$/),
  cmd('a body that is not JSON', 'web', 'abort', 'abort please', 400, '(body)', /malformed JSON/),
  cmd('approve with a negative stepIndex', 'busy', 'approve', { stepIndex: -1 }, 400, 'stepIndex', />= 0/),
  cmd('approve with stepIndex as a string', 'busy', 'approve', { stepIndex: '1' }, 400, 'stepIndex', /^must be a number, not the string "1"$/),
  cmd('approve when nothing awaits approval', 'web', 'approve', {}, 409, 'approve', /no release is waiting for approval/),
  cmd('approve of another step than the one waiting', 'busy', 'approve', { stepIndex: 1 }, 409, 'stepIndex', /stepIndex 1 is not the step waiting for approval: the release waits at step index 0 \(step 1\)/),
  cmd('approve of a release that is not the one waiting', 'busy', 'approve', { releaseId: 'r9' }, 409, 'releaseId', /releaseId r9 is not the release waiting for approval \(r1 is\)/),
  cmd('approve with a releaseId that is not one', 'busy', 'approve', { releaseId: 'latest' }, 400, 'releaseId', /must be a release id such as r3/),
  cmd('pause with an unknown field', 'web', 'pause', { reason: 'lunch' }, 400, 'reason', /^unknown field$/),
  cmd('pause when already paused', 'held', 'pause', {}, 409, 'pause', /already paused/),
  cmd('resume when not paused', 'web', 'resume', {}, 409, 'resume', /not paused$/),
  cmd('abort with no release in progress', 'web', 'abort', {}, 409, 'abort', /no release in progress/),
  cmd('retry of a release that has not failed', 'busy', 'retry', {}, 409, 'retry', /the release has not failed/),
  cmd('undo to revision 0', 'web', 'undo', { toRevision: 0 }, 400, 'toRevision', /revision number >= 1/),
  cmd('undo to revision "two"', 'web', 'undo', { toRevision: 'two' }, 400, 'toRevision', /^must be a number, not the string "two"$/),
  cmd('delete with an unknown field', 'web', 'delete', { force: true }, 400, 'force', /^unknown field$/),
  cmd('an empty commandId', 'web', 'pause', { commandId: '' }, 400, 'commandId', /^must not be empty$/),
  cmd('a commandId of 200 characters', 'web', 'pause', { commandId: 'c'.repeat(200) }, 400, 'commandId', /at most 128 characters/),
  cmd('a commandId with a space', 'web', 'pause', { commandId: 'ci 42' }, 400, 'commandId', /printable ASCII without spaces/),
  cmd('a commandId already used for another command', 'dupes', 'abort', { commandId: FIXTURES.dupes.pendingCommandId }, 409, 'commandId', /already used for a pause command/),
  cmd('a command for a rollout that does not exist', 'nope', 'pause', {}, 404, 'nope', /rollout test\/battery\/nope not found/),
  cmd('a command for a rollout being deleted', 'leaving', 'pause', {}, 409, 'pause', /the rollout is being deleted/),
];

const reg = (name: string, body: unknown, field: string, reason: RegExp, path = '/v1/clusters/prod'): HttpCase =>
  ({ category: 'cluster registration', name, method: 'PUT', path, body, status: 400, field, reason });
const EKS = { clusterName: 'prod', region: 'eu-west-1' };
const dereg = (name: string, cluster: string, status: number, field: string, reason: RegExp): HttpCase =>
  ({ category: 'cluster registration', name, method: 'DELETE', path: `/v1/clusters/${cluster}`, status, field, reason });

const CLUSTERS: HttpCase[] = [
  reg('neither eks nor endpoint', {}, 'eks', /exactly one of eks or endpoint/),
  reg('both eks and endpoint', { eks: EKS, endpoint: { server: 'https://10.0.0.1' } }, 'eks', /exactly one of eks or endpoint/),
  reg('an EKS region that is not one', { eks: { ...EKS, region: 'europe' } }, 'eks.region', /AWS region/),
  reg('an EKS cluster name with a space', { eks: { ...EKS, clusterName: 'my cluster' } }, 'eks.clusterName', /EKS cluster name/),
  reg('a role that is not an IAM role ARN', { eks: { ...EKS, roleArn: 'arn:aws:iam::123:user/bob' } }, 'eks.roleArn', /IAM role ARN/),
  reg('an endpoint server that is not a URL', { endpoint: { server: 'apiserver:6443' } }, 'endpoint.server', /http\(s\) URL/),
  reg('a token secret that is not a Secrets Manager ARN', { endpoint: { server: 'https://10.0.0.1', tokenSecretArn: 'my-token' } }, 'endpoint.tokenSecretArn', /Secrets Manager secret ARN/),
  reg('insecureSkipTlsVerify as a string', { endpoint: { server: 'https://10.0.0.1', insecureSkipTlsVerify: 'yes' } }, 'endpoint.insecureSkipTlsVerify', /^must be true or false, not the string "yes"$/),
  reg('a name in the body other than the URL\'s', { name: 'staging', eks: EKS }, 'name', /is "staging" but the URL names "prod"/),
  reg('an unknown field', { eks: EKS, kubeconfig: '~/.kube/config' }, 'kubeconfig', /^unknown field$/),
  reg('a cluster name that starts with "-"', { eks: EKS }, 'cluster', /must be 1-100 letters, digits/, '/v1/clusters/-prod'),
  // Deregistration (shared/fleet/leave.ts): never leaving a workload held. The fixtures' cluster is registered and holds Rollouts no fleet owns.
  dereg('deregister of a cluster holding Rollouts no fleet owns', C, 409, 'name', /^cluster test has rollout battery\/busy, which no fleet owns: delete it first \(rollouts delete busy -n battery --cluster test hands its workload back\)$/),
  dereg('deregister of a cluster that is not registered', 'nowhere', 404, 'nowhere', /cluster "nowhere" is not registered/),
  dereg('deregister of a cluster name with a space', 'a%20b', 400, 'cluster', /must be 1-100 letters, digits/),
];

const req = (name: string, method: string, path: string, status: number, field: string, reason: RegExp, body?: unknown): HttpCase =>
  ({ category: 'query and path parameters', name, method, path, status, field, reason, ...(body === undefined ? {} : { body }) });

const PARAMS: HttpCase[] = [
  req('a namespace with capitals', 'GET', `/v1/rollouts/${C}/Battery/web`, 400, 'namespace', /DNS-1123 label/),
  req('a name of ".."', 'GET', `/v1/rollouts/${C}/${NAMESPACE}/..`, 400, 'name', /DNS-1123 subdomain/),
  req('".." as the namespace segment', 'GET', `/v1/rollouts/${C}/../web/status`, 400, 'namespace', /DNS-1123 label/),
  req('an encoded slash inside the name', 'GET', `/v1/rollouts/${C}/${NAMESPACE}/web%2Fstatus`, 400, 'name', /DNS-1123 subdomain/),
  req('invalid percent-encoding', 'GET', `/v1/rollouts/${C}/${NAMESPACE}/web%E0%A4%A`, 400, 'name', /not valid percent-encoding/),
  req('a URL of 8 KB', 'GET', `/v1/rollouts/${C}/${NAMESPACE}/${'w'.repeat(8000)}`, 400, 'name', /at most 253 characters/),
  req('a list filter with a bad namespace', 'GET', '/v1/rollouts?namespace=Bad_NS', 400, 'namespace', /DNS-1123 label/),
  req('a list filter with a bad cluster', 'GET', '/v1/rollouts?cluster=a%20b', 400, 'cluster', /must be 1-100 letters, digits/),
  req('a wrong method on a rollout', 'PATCH', R('web'), 405, 'PATCH', /is not allowed on .*; use PUT, GET, DELETE/),
  req('GET on a command verb', 'GET', R('web', '/approve'), 405, 'GET', /use POST/),
  req('an unknown verb', 'POST', R('web', '/frobnicate'), 404, 'frobnicate', /no such route/),
  req('a cluster name with a space', 'GET', '/v1/clusters/a%20b', 400, 'cluster', /must be 1-100 letters, digits/),
];

const cli = (name: string, argv: string[], exit: number, field: string, reason: RegExp, files?: Record<string, string>): CliCase =>
  ({ category: 'CLI flags and messages', name, argv, exit, field, reason, ...(files ? { files } : {}) });

const CLI: CliCase[] = [
  cli('release without --image', ['release', 'web'], 2, '--image', /required option '--image <container=image>' not specified/),
  cli('--image without "="', ['release', 'web', '--image', 'nginx:1.28'], 2, '--image', /write <container>=<image>/),
  cli('--image naming one container twice', ['release', 'web', '--image', 'app=a:1', '--image', 'app=b:2'], 2, '--image', /container "app" is given twice/),
  cli('--at that is not a time', ['release', 'web', '--image', 'app=registry.invalid/app:v2', '--at', 'tomorrow'], 2, '--at', /RFC 3339/),
  cli('--to-revision 0', ['undo', 'web', '--to-revision', '0'], 2, '--to-revision', /revision number >= 1/),
  cli('--to-revision that is not a number', ['undo', 'web', '--to-revision', 'two'], 2, '--to-revision', /revision number >= 1/),
  cli('-o yaml', ['get', 'web', '-o', 'yaml'], 2, '--output', /Allowed choices are text, json/),
  cli('--timeout that is not a duration', ['delete', 'web', '--wait', '--timeout', 'soon'], 2, '--timeout', /duration/),
  cli('an unknown flag', ['approve', 'web', '--force'], 2, '--force', /unknown option '--force'/),
  cli('--endpoint that is not a URL', ['approve', 'web', '--endpoint', 'lambda'], 2, '--endpoint', /must be a URL/),
  cli('apply -f of a missing file', ['apply', '-f', '{home}/missing.yaml'], 1, 'missing.yaml', /ENOENT|no such file/),
  cli('apply -f of a document with a 0% step', ['apply', '-n', NAMESPACE, '-f', '{home}/zero.yaml'], 1, `${STEP0}.replicas`, /must be > 0%/,
    { 'zero.yaml': 'apiVersion: rollouts.serverless-rollouts.io/v1alpha1\nkind: Rollout\nmetadata: {name: web}\nspec:\n  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  strategy: {canary: {steps: [{replicas: 0%}, {replicas: 100%}]}}\n' }),
  cli('apply -f of malformed YAML', ['apply', '-f', '{home}/broken.yaml'], 1, 'broken.yaml', /YAML/, { 'broken.yaml': 'kind: Rollout\nspec: [unclosed\n' }),
  cli('-n with an invalid namespace', ['approve', 'web', '-n', 'Bad_NS'], 1, 'namespace', /DNS-1123 label/),
  cli('release of an invalid image reference', ['release', 'web', '-n', NAMESPACE, '--image', 'app=NGINX:@@bad'], 1, 'images.app', /reference/),
  cli('release of a container the workload does not have', ['release', 'web', '-n', NAMESPACE, '--image', 'sidecar=envoy:1.31'], 1, 'images.sidecar', /no container "sidecar" in Deployment battery\/web \(containers: app\)/),
  cli('approve when nothing awaits approval', ['approve', 'web', '-n', NAMESPACE], 1, 'approve', /^error: approve test\/battery\/web: no release is waiting for approval\n$/),
  cli('undo --to-revision of a revision not retained', ['undo', 'web', '-n', NAMESPACE, '--to-revision', '99'], 1, 'toRevision', /^toRevision: revision 99 is not retained by Deployment battery\/web \(retained: 1\)\n$/),
  cli('plan --steps with a step over 100%', ['plan', '--replicas', '10', '--steps', '1,150%'], 2, '--steps', /must be <= 100%/),
  cli('clusters deregister without a name', ['clusters', 'deregister'], 2, 'name', /missing required argument 'name'/),
  cli('clusters deregister --timeout that is not a duration', ['clusters', 'deregister', C, '--wait', '--timeout', 'soon'], 2, '--timeout', /duration/),
  cli('clusters deregister of a cluster holding Rollouts no fleet owns', ['clusters', 'deregister', C], 1, 'name', /^name: cluster test has rollout battery\/busy, which no fleet owns: delete it first/),
];

const live = (name: string, method: string, path: string, body: unknown, status: number, field: string, reason: RegExp, api: 'local' | 'deployed' = 'local'): HttpCase =>
  ({ category: 'live-workload checks', name, api, method, path, body, status, field, reason });

const LIVE: HttpCase[] = [
  live('release of a container the workload does not have', 'POST', R('web', '/release'), { images: { sidecar: 'envoy:1.31' } }, 422, 'images.sidecar', /no container "sidecar" in Deployment battery\/web \(containers: app\)/),
  live('release of the image already running', 'POST', R('web', '/release'), { images: { app: 'registry.invalid/app:v1' } }, 409, 'images.app', /nothing to release: container app already runs registry.invalid\/app:v1/),
  live('a templatePatch that breaks the selector (server-side dry-run)', 'POST', R('web', '/release'), { templatePatch: { metadata: { labels: { app: 'other' } } } }, 422, 'templatePatch', /the apiserver refuses the change \(dry-run\): .*selector/),
  live('a templatePatch that changes nothing', 'POST', R('web', '/release'), { templatePatch: { metadata: { labels: { app: 'web' } } } }, 409, 'templatePatch', /^nothing to release: the change leaves the pod template as it is$/),
  live('undo to a revision the Deployment does not retain', 'POST', R('web', '/undo'), { toRevision: 99 }, 409, 'toRevision', /revision 99 is not retained by Deployment battery\/web \(retained: 1\)/),
  live('undo with no earlier completed revision', 'POST', R('web', '/undo'), {}, 409, 'undo', /there is no earlier revision that completed a release to go back to \(retained: 1\)/),
  live('release of a CloneSet on a cluster without OpenKruise', 'POST', R('clone', '/release'), { images: { app: 'registry.invalid/app:v2' } }, 422, 'spec.workloadRef', /apps\.kruise\.io\/v1alpha1 CloneSet is not served by cluster "[^"]+": the CRD that defines it is not installed/),
  live('undo to a revision the StatefulSet does not retain', 'POST', R('db', '/undo'), { toRevision: 7 }, 409, 'toRevision', /revision 7 is not retained by StatefulSet battery\/db \(retained: 1\)/),
  live('release of a workload that does not exist', 'POST', R('orphan', '/release'), { images: { app: 'registry.invalid/app:v2' } }, 404, 'missing', /Deployment battery\/missing does not exist in cluster "test"/),
  live('apply for a cluster this local API does not serve', 'PUT', `/v1/rollouts/prod/${NAMESPACE}/web`, doc('web'), 404, 'cluster', /cluster "prod" is not registered \(this API serves "test"\)/),
  live('apply for an unregistered cluster (deployed API)', 'PUT', `/v1/rollouts/eu/${NAMESPACE}/web`, doc('web'), 404, 'cluster', /cluster "eu" is not registered \(PUT \/v1\/clusters\/eu first\)/, 'deployed'),
  live('apply for a Recreate Deployment', 'PUT', R('recreate'), doc('recreate'), 422, 'spec.workloadRef', /spec.strategy.type Recreate, which replaces every pod at once/),
  live('a templatePatch the apiserver refuses (containers not a list)', 'POST', R('web', '/release'), { templatePatch: { spec: { containers: 'app' } } }, 422, 'templatePatch', /the apiserver refuses the change \(dry-run\)/),
];

export const BATTERY: readonly BatteryCase[] = [...SPEC, ...COMMANDS, ...CLUSTERS, ...PARAMS, ...CLI, ...LIVE];

/** The README's table: category | cases. */
export function batteryTable(): string {
  const rows = CATEGORIES.map((c) => `| ${c} | ${BATTERY.filter((k) => k.category === c).length} |`);
  return ['| category | cases |', '|---|---|', ...rows, `| **total** | **${BATTERY.length}** |`].join('\n');
}

export function isCliCase(c: BatteryCase): c is CliCase {
  return 'argv' in c;
}
