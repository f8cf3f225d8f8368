// kwok's --config: a KwokConfiguration plus every Stage. kwok v0.7.0 uses only the config's stages
// for a resource kind once any are given, so all five default stages are included here (read from
// the copies the build script keeps), with two changes for tests:
//  - pod-ready waits `podReadyDelayMs` after the pod is scheduled (slow starts, real-time
//    minReadySeconds) and skips pods labelled never-ready;
//  - pod-running-never-ready makes labelled pods Running with Ready=False, forever;
//  - pod-image-pull-backoff leaves pods whose image has the tag `missing` Pending in ImagePullBackOff,
//    with a kubelet-like message, forever (what a release of an image that does not exist looks like).
// A second --config (kwok-inplace-and-exec.yaml) adds what a kubelet does for OpenKruise in-place
// updates and runs `kubectl exec` commands on this host.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments, stringify } from 'yaml';

/** Pods with this label set to "true" become Running but never Ready. */
export const NEVER_READY_LABEL = 'test.rollouts/never-ready';
/** Nodes kwok manages carry this annotation (kwok.x-k8s.io/node=fake). */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
export const KWOK_NODE_ANNOTATION_VALUE = 'fake';

/** Images with this tag (e.g. registry.invalid/web:missing) never pull: the pod stays in ImagePullBackOff. */
export const UNPULLABLE_TAG = 'missing';
const UNPULLABLE_KEY = `([.spec.containers[].image | endswith(":${UNPULLABLE_TAG}")] | any)`;

const DEFAULT_STAGE_FILES = ['node-initialize', 'node-heartbeat-with-lease', 'pod-ready', 'pod-complete', 'pod-delete'];
const NEVER_READY_KEY = `.metadata.labels["${NEVER_READY_LABEL}"]`;

interface SelectorExpression {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

interface Stage {
  apiVersion: string;
  kind: 'Stage';
  metadata: { name: string };
  spec: {
    resourceRef: { apiGroup: string; kind: string };
    selector?: { matchExpressions?: SelectorExpression[] };
    delay?: { durationMilliseconds: number };
    next: { statusTemplate?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
}

// Same shape as kwok's pod-ready status, but the container never passes its readiness probe.
const NEVER_READY_STATUS_TEMPLATE = `{{ $now := Now }}
conditions:
- lastTransitionTime: {{ $now | Quote }}
  status: "True"
  type: Initialized
- lastTransitionTime: {{ $now | Quote }}
  status: "False"
  type: Ready
  reason: ContainersNotReady
  message: "${NEVER_READY_LABEL}: readiness probe never succeeds"
- lastTransitionTime: {{ $now | Quote }}
  status: "False"
  type: ContainersReady
  reason: ContainersNotReady
containerStatuses:
{{ range .spec.containers }}
- image: {{ .image | Quote }}
  name: {{ .name | Quote }}
  ready: false
  started: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ end }}
hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
phase: Running
startTime: {{ $now | Quote }}
`;

// A kubelet that cannot pull: the sandbox runs (pod IP), every container waits in ImagePullBackOff.
const IMAGE_PULL_BACKOFF_STATUS_TEMPLATE = `{{ $now := Now }}
conditions:
- lastTransitionTime: {{ $now | Quote }}
  status: "True"
  type: Initialized
- lastTransitionTime: {{ $now | Quote }}
  status: "False"
  type: Ready
  reason: ContainersNotReady
  message: "containers with unready status: [{{ range $i, $c := .spec.containers }}{{ if $i }} {{ end }}{{ $c.name }}{{ end }}]"
- lastTransitionTime: {{ $now | Quote }}
  status: "False"
  type: ContainersReady
  reason: ContainersNotReady
containerStatuses:
{{ range .spec.containers }}
- image: {{ .image | Quote }}
  name: {{ .name | Quote }}
  ready: false
  started: false
  restartCount: 0
  state:
    waiting:
      reason: ImagePullBackOff
      message: {{ printf "Back-off pulling image \\"%s\\": ErrImagePull: %s: not found" .image .image | Quote }}
{{ end }}
hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
phase: Pending
startTime: {{ $now | Quote }}
`;

export interface KwokConfigOptions {
  stagesDir: string;
  podReadyDelayMs: number;
  /** Pod IPs come from this range. */
  cidr: string;
  nodeIP: string;
}

export function kwokStages(stagesDir: string, podReadyDelayMs: number): Stage[] {
  const stages = DEFAULT_STAGE_FILES.map((name) => parse(fs.readFileSync(path.join(stagesDir, `${name}.yaml`), 'utf8')) as Stage);
  const podReady = stages.find((stage) => stage.metadata.name === 'pod-ready');
  if (!podReady) throw new Error(`pod-ready stage missing in ${stagesDir}`);

  const neverReady = structuredClone(podReady);
  neverReady.metadata.name = 'pod-running-never-ready';
  neverReady.spec.selector = {
    matchExpressions: [...(podReady.spec.selector?.matchExpressions ?? []), { key: NEVER_READY_KEY, operator: 'In', values: ['true'] }],
  };
  neverReady.spec.next = { statusTemplate: NEVER_READY_STATUS_TEMPLATE };

  const pullBackOff = structuredClone(podReady);
  pullBackOff.metadata.name = 'pod-image-pull-backoff';
  pullBackOff.spec.selector = {
    matchExpressions: [...(podReady.spec.selector?.matchExpressions ?? []), { key: UNPULLABLE_KEY, operator: 'In', values: ['true'] }],
  };
  pullBackOff.spec.next = { statusTemplate: IMAGE_PULL_BACKOFF_STATUS_TEMPLATE };
  neverReady.spec.selector.matchExpressions?.push({ key: UNPULLABLE_KEY, operator: 'NotIn', values: ['true'] });

  // A missing label matches NotIn (kwok treats a null jq result as "not in the set").
  podReady.spec.selector = {
    matchExpressions: [
      ...(podReady.spec.selector?.matchExpressions ?? []),
      { key: NEVER_READY_KEY, operator: 'NotIn', values: ['true'] },
      { key: UNPULLABLE_KEY, operator: 'NotIn', values: ['true'] },
    ],
  };
  if (podReadyDelayMs > 0) {
    // kwok starts the delay when it sees the pod bound to one of its nodes, i.e. once scheduled.
    podReady.spec.delay = { durationMilliseconds: podReadyDelayMs };
    neverReady.spec.delay = { durationMilliseconds: podReadyDelayMs };
    pullBackOff.spec.delay = { durationMilliseconds: podReadyDelayMs };
  }
  return [...stages, neverReady, pullBackOff];
}

export function writeKwokConfig(file: string, options: KwokConfigOptions): void {
  const configuration = {
    apiVersion: 'config.kwok.x-k8s.io/v1alpha1',
    kind: 'KwokConfiguration',
    options: {
      cidr: options.cidr,
      nodeIP: options.nodeIP,
      manageAllNodes: false,
      manageNodesWithAnnotationSelector: `${KWOK_NODE_ANNOTATION}=${KWOK_NODE_ANNOTATION_VALUE}`,
      // kwok renews each node's Lease (the heartbeat-with-lease stage expects it), as a kubelet would.
      nodeLeaseDurationSeconds: 40,
    },
  };
  const documents = [configuration, ...kwokStages(options.stagesDir, options.podReadyDelayMs)];
  fs.writeFileSync(file, documents.map((document) => stringify(document)).join('---\n'));
}

const EXTRA_CONFIG_TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'kwok-inplace-and-exec.yaml');

interface ClusterExec {
  kind: 'ClusterExec';
  spec: { execs: { local: { workDir: string } }[] };
}

/**
 * kwok's second --config: the in-place update and readiness-gate Stages, and a ClusterExec that runs
 * every `kubectl exec` on this host, as this user, in `execWorkDir` (created here). Commands never
 * see stdin close, and a non-zero exit code reaches the client only inside the error message
 * (kwok's ClusterExec: the exec runs on the host, not in a container).
 */
export function writeKwokExtraConfig(file: string, execWorkDir: string): void {
  fs.mkdirSync(execWorkDir, { recursive: true });
  const documents = parseAllDocuments(fs.readFileSync(EXTRA_CONFIG_TEMPLATE, 'utf8')).map((document) => document.toJSON() as { kind: string });
  const execs = documents.filter((document): document is ClusterExec => document.kind === 'ClusterExec');
  const [clusterExec, ...more] = execs;
  if (!clusterExec || more.length > 0) throw new Error(`${EXTRA_CONFIG_TEMPLATE} must hold exactly one ClusterExec, found ${execs.length}`);
  for (const exec of clusterExec.spec.execs) exec.local.workDir = execWorkDir;
  fs.writeFileSync(file, documents.map((document) => stringify(document)).join('---\n'));
}
