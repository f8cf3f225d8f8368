// The two DaemonSets the DaemonSet drivers serve. The native one has no partition: it is held by
// switching spec.updateStrategy to OnDelete (the user's strategy kept in an annotation) and a batch
// deletes old pods. Kruise's Advanced DaemonSet has a node partition (rollingUpdate.partition: the
// nodes kept old) and updates the rest itself, by its own rollingUpdateType (Standard, or
// InPlaceIfPossible), maxUnavailable and maxSurge; rollingUpdate.paused is the user's (never written;
// a paused set blocks the batch and the rollout says so). Either, when the user's own strategy is
// OnDelete, is moved by deleting pods (or, with onDeletePolicy Manual, by the user).
import type { KubeObject } from '../../kube/types.ts';
import type { WorkloadType } from '../../rollout/workloadType.ts';
import { status } from '../common/objects.ts';
import { revisionNumberOf } from '../common/revisions.ts';
import { isPaused, revisionHash } from './daemonSetObjects.ts';
import { ADVANCED_DAEMONSET_TYPE, DAEMONSET_TYPE } from './type.ts';

export interface DaemonSetFlavor {
  readonly kind: 'DaemonSet' | 'AdvancedDaemonSet';
  readonly apiVersion: string;
  /** What the rollout core may know of it (./type.ts). */
  readonly type: WorkloadType;
  readonly apiGroup: string;
  readonly title: string;
  /** How a RollingUpdate DaemonSet is held. */
  readonly holdsBy: 'OnDelete' | 'partition';
  /** The template hash the controller reports ('' when none). */
  reportedHash(ds: KubeObject, revisions: KubeObject[]): string;
  blocked(ds: KubeObject): string | null;
}

export const NATIVE_DAEMONSET: DaemonSetFlavor & { kind: 'DaemonSet' } = {
  kind: 'DaemonSet',
  apiVersion: DAEMONSET_TYPE.apiVersion,
  type: DAEMONSET_TYPE,
  apiGroup: 'apps',
  title: 'DaemonSet',
  holdsBy: 'OnDelete',
  // Its controller gives the current template's revision the highest number (constructHistory).
  reportedHash: (_ds, revisions) => {
    const newest = [...revisions].sort((a, b) => revisionNumberOf(b) - revisionNumberOf(a))[0];
    return newest ? revisionHash(newest) : '';
  },
  blocked: () => null,
};

export const ADVANCED_DAEMONSET: DaemonSetFlavor & { kind: 'AdvancedDaemonSet' } = {
  kind: 'AdvancedDaemonSet',
  apiVersion: ADVANCED_DAEMONSET_TYPE.apiVersion,
  type: ADVANCED_DAEMONSET_TYPE,
  apiGroup: 'apps.kruise.io',
  title: 'Advanced DaemonSet',
  holdsBy: 'partition',
  reportedHash: (ds) => {
    const hash = status(ds).daemonSetHash;
    return typeof hash === 'string' ? hash : '';
  },
  blocked: (ds) => isPaused(ds)
    ? 'the Advanced DaemonSet has spec.updateStrategy.rollingUpdate.paused: true, so it updates no node; unpause it to go on'
    : null,
};
