// What each batch of a release would do to a workload of `total` replicas: the `rollouts plan` view.
import { batchTarget } from './arithmetic.ts';
import { stepPauseLabel } from './spec.ts';
import type { IntOrPercent, Step, WorkloadKind } from './types.ts';

export interface BatchPreview {
  /** 1-based, as people count steps (Kruise currentStepIndex is 1-based too). */
  step: number;
  /** The step's replicas as written: 1 or "50%". */
  replicas: IntOrPercent;
  /** Pods on the new revision once the batch is done. */
  updated: number;
  /** Pods left on the stable revision. */
  stable: number;
  /** What happens after the batch: "approval", "<n>s" or "none". */
  pause: string;
}

export interface ReleasePreview {
  replicas: number;
  batches: BatchPreview[];
}

/**
 * `inPlace` false: a canary workload (Kruise's enableExtraWorkloadForCanary): the new pods run beside
 * the workload's, which keeps all N on the stable revision until the end, and a percent is the plain
 * ceil (arithmetic.ts batchTarget).
 */
export function previewBatches(kind: WorkloadKind, total: number, steps: readonly Step[], inPlace = true): ReleasePreview {
  return {
    replicas: total,
    batches: steps.map((s, i) => {
      const updated = batchTarget(kind, s.replicas, total, inPlace);
      return { step: i + 1, replicas: s.replicas, updated, stable: inPlace ? total - updated : total, pause: stepPauseLabel(s.pause) };
    }),
  };
}
