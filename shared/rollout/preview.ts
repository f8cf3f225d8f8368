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

export function previewBatches(kind: WorkloadKind, total: number, steps: readonly Step[]): ReleasePreview {
  return {
    replicas: total,
    batches: steps.map((s, i) => {
      const updated = batchTarget(kind, s.replicas, total);
      return { step: i + 1, replicas: s.replicas, updated, stable: total - updated, pause: stepPauseLabel(s.pause) };
    }),
  };
}
