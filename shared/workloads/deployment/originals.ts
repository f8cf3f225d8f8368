// The MinReadySeconds strategy's contract on the Deployment itself (Kruise's proposal
// openkruise/rollouts:docs/proposals/20260315-deployment-minready-seconds-progressive-delivery.md, seed 001): while a
// release runs, the four fields it takes over are kept in `rollouts.kruise.io/original-*`
// annotations, written and removed in the same patch as the fields. They are the ground truth: they
// say a release is in flight even when our STATE is lost, and they are what every hand-back restores.
// A missing or malformed one is a broken contract (Degraded), never a silent fall-back to defaults.
import type { KubeObject } from '../../kube/types.ts';
import { spec } from '../common/objects.ts';
import type { IntOrPercent } from '../../rollout/types.ts';
import { INFLATED_MIN_READY_SECONDS, INFLATED_PROGRESS_DEADLINE_SECONDS, MAX_INT32, strategyOf } from './deploymentObjects.ts';

export const ORIGINAL_MIN_READY_SECONDS = 'rollouts.kruise.io/original-min-ready-seconds';
export const ORIGINAL_PROGRESS_DEADLINE_SECONDS = 'rollouts.kruise.io/original-progress-deadline-seconds';
export const ORIGINAL_MAX_UNAVAILABLE = 'rollouts.kruise.io/original-max-unavailable';
export const ORIGINAL_MAX_SURGE = 'rollouts.kruise.io/original-max-surge';
/** The field was not set: restoring removes it again, so the apiserver defaults it as before. */
export const K8S_DEFAULT = '__k8s_default__';

export const ORIGINAL_ANNOTATIONS = [ORIGINAL_MIN_READY_SECONDS, ORIGINAL_PROGRESS_DEADLINE_SECONDS, ORIGINAL_MAX_UNAVAILABLE, ORIGINAL_MAX_SURGE] as const;

/** The user's values of the four fields; null = unset. */
export interface Originals {
  minReadySeconds: number | null;
  progressDeadlineSeconds: number | null;
  maxUnavailable: IntOrPercent | null;
  maxSurge: IntOrPercent | null;
}

export type OriginalsRead =
  | { state: 'absent' }
  | { state: 'ok'; originals: Originals }
  /** `salvaged`: what the readable annotations say, the rest unset (what a deleted rollout restores). */
  | { state: 'broken'; problems: string[]; salvaged: Originals };

/** A MinReadySeconds release is in flight: any annotation is there, or the field is still inflated. */
export function inMinReadyTakeover(d: KubeObject): boolean {
  const annotations = d.metadata.annotations ?? {};
  return ORIGINAL_ANNOTATIONS.some((a) => annotations[a] !== undefined) || spec(d).minReadySeconds === INFLATED_MIN_READY_SECONDS;
}

export function readOriginals(d: KubeObject): OriginalsRead {
  if (!inMinReadyTakeover(d)) return { state: 'absent' };
  const annotations = d.metadata.annotations ?? {};
  const problems: string[] = [];
  const read = <T>(key: string, parse: (raw: string) => T | undefined, what: string): T | null => {
    const raw = annotations[key];
    if (raw === undefined) {
      problems.push(`annotation ${key} is missing: it holds the ${what} to restore when the release ends; put back the value it had (see \`rollouts history\`), or set the Deployment's fields yourself and delete the rollout`);
      return null;
    }
    if (raw === K8S_DEFAULT) return null;
    const value = parse(raw);
    if (value === undefined) {
      problems.push(`annotation ${key} is ${JSON.stringify(raw)}, which is not a ${what} (nor ${K8S_DEFAULT}); put back the value it had`);
      return null;
    }
    return value;
  };
  const originals: Originals = {
    minReadySeconds: read(ORIGINAL_MIN_READY_SECONDS, (r) => int32(r, 0), 'minReadySeconds (whole seconds)'),
    progressDeadlineSeconds: read(ORIGINAL_PROGRESS_DEADLINE_SECONDS, (r) => int32(r, 1), 'progressDeadlineSeconds (whole seconds)'),
    maxUnavailable: read(ORIGINAL_MAX_UNAVAILABLE, intOrPercent, 'maxUnavailable (an integer or a percent)'),
    maxSurge: read(ORIGINAL_MAX_SURGE, intOrPercent, 'maxSurge (an integer or a percent)'),
  };
  return problems.length > 0 ? { state: 'broken', problems, salvaged: originals } : { state: 'ok', originals };
}

/** The live values, as the snapshot a release starts with. */
export function liveOriginals(d: KubeObject): Originals {
  const s = spec(d);
  const rolling = strategyOf(d).rollingUpdate ?? {};
  return {
    minReadySeconds: typeof s.minReadySeconds === 'number' ? s.minReadySeconds : null,
    progressDeadlineSeconds: typeof s.progressDeadlineSeconds === 'number' ? s.progressDeadlineSeconds : null,
    maxUnavailable: rolling.maxUnavailable ?? null,
    maxSurge: rolling.maxSurge ?? null,
  };
}

export function originalAnnotations(o: Originals): Record<string, string> {
  const text = (v: number | string | null) => (v === null ? K8S_DEFAULT : String(v));
  return {
    [ORIGINAL_MIN_READY_SECONDS]: text(o.minReadySeconds),
    [ORIGINAL_PROGRESS_DEADLINE_SECONDS]: text(o.progressDeadlineSeconds),
    [ORIGINAL_MAX_UNAVAILABLE]: text(o.maxUnavailable),
    [ORIGINAL_MAX_SURGE]: text(o.maxSurge),
  };
}

/** The merge patch (spec part) that puts the user's fields back; null removes a field the user never set. */
export function restoredFields(o: Originals): Record<string, unknown> {
  return {
    minReadySeconds: o.minReadySeconds,
    progressDeadlineSeconds: o.progressDeadlineSeconds,
    strategy: { rollingUpdate: { maxSurge: o.maxSurge, maxUnavailable: o.maxUnavailable } },
  };
}

/** Annotation removals of a hand-back. */
export function droppedOriginals(d: KubeObject): Record<string, null> {
  const annotations = d.metadata.annotations ?? {};
  return Object.fromEntries(ORIGINAL_ANNOTATIONS.filter((a) => annotations[a] !== undefined).map((a) => [a, null]));
}

/** The fields that keep new pods Ready-but-not-Available and the native deadline off, where they are not. */
export function inflation(d: KubeObject): Record<string, number> {
  const s = spec(d);
  const out: Record<string, number> = {};
  if (s.minReadySeconds !== INFLATED_MIN_READY_SECONDS) out.minReadySeconds = INFLATED_MIN_READY_SECONDS;
  if (s.progressDeadlineSeconds !== INFLATED_PROGRESS_DEADLINE_SECONDS) out.progressDeadlineSeconds = INFLATED_PROGRESS_DEADLINE_SECONDS;
  return out;
}

/** A Deployment patch in the making: spec fields, annotations, and why, for the write's reason. */
export interface TakeOverPatch {
  spec: Record<string, unknown>;
  annotations: Record<string, string>;
  reasons: string[];
}

/**
 * The start of every pass that paces a batch through the native controller (MinReadySeconds and
 * blue-green): the user's fields snapshotted on the first pass (`originals` null), and the inflation
 * put back wherever it is not.
 */
export function takeOverPatch(d: KubeObject, originals: Originals | null): TakeOverPatch {
  const out: TakeOverPatch = { spec: {}, annotations: {}, reasons: [] };
  if (originals === null) {
    Object.assign(out.annotations, originalAnnotations(liveOriginals(d)));
    out.reasons.push('take over: snapshot the user\'s fields into rollouts.kruise.io/original-*');
  }
  const inflate = inflation(d);
  if (Object.keys(inflate).length > 0) {
    Object.assign(out.spec, inflate);
    out.reasons.push(originals === null ? 'inflate minReadySeconds and progressDeadlineSeconds' : 're-inflate minReadySeconds/progressDeadlineSeconds (someone lowered them)');
  }
  return out;
}

/** What a hand-back leaves on the Deployment, for people (the CLI's `delete`). */
export function describeOriginals(o: Originals): string[] {
  const v = (x: number | string | null, unset: string) => (x === null ? `${unset} (unset, the Kubernetes default)` : String(x));
  return [
    `spec.minReadySeconds: ${v(o.minReadySeconds, '0')}`,
    `spec.progressDeadlineSeconds: ${v(o.progressDeadlineSeconds, '600')}`,
    `spec.strategy.rollingUpdate.maxSurge: ${v(o.maxSurge, '25%')}`,
    `spec.strategy.rollingUpdate.maxUnavailable: ${v(o.maxUnavailable, '25%')}`,
  ];
}

function int32(raw: string, min: number): number | undefined {
  if (!/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= min && n <= MAX_INT32 ? n : undefined;
}

function intOrPercent(raw: string): IntOrPercent | undefined {
  if (/^\d+$/.test(raw)) return int32(raw, 0);
  if (/^\d+%$/.test(raw)) return raw as IntOrPercent;
  return undefined;
}

