// The soak's random user of one rollout, and the drain that brings it to rest afterwards. The user
// acts through local mode's API as a person might at each moment (approve, pause, resume, abort,
// retry, undo, release a new image, scale the workload like an HPA), and sets the approval gates
// the watchers check: a new image is capped at one pod until an approval of its release's first
// step is accepted (bench/testbed/invariants.ts, setWatcher.ts).
import type { AppsV1Api } from '@kubernetes/client-node';
import type { StatusResponse } from '../../../shared/api/types.ts';
import type { Random } from '../faults/prng.ts';
import type { InvariantWatcher } from '../invariants.ts';
import { mergePatch } from '../kube.ts';
import { IMAGE, type FleetMember } from './fleet.ts';
import type { SetWatcher } from './setWatcher.ts';
import type { SoakApi } from './soakApi.ts';

type Watcher = InvariantWatcher | SetWatcher;

/**
 * One rollout's random user until `end`: looks at the status, then acts as a person might at that
 * moment. The first step (one pod) is gated on the cluster too: pods of a new image stay capped at
 * one until its approval is sent.
 */
export async function actor(m: FleetMember, rng: Random, api: SoakApi, watcher: Watcher, apps: AppsV1Api, end: number, violations: string[]): Promise<void> {
  const release = async (): Promise<void> => {
    m.images += 1;
    const image = IMAGE(m.images);
    // Capped before it is sent (its pods may appear before the answer), lifted if the API refused it.
    watcher.capPods(image, 1);
    const code = await api.command(m.namespace, m.name, 'release', { images: { app: image } });
    if (code !== 202 && code !== 200) watcher.capPods(image, Number.POSITIVE_INFINITY);
  };
  /** Images whose first batch an accepted approval let go further. */
  const approved = new Set<string>();
  /** The image of the release waiting at step 1 (its approval lets more of its pods run). */
  const waitingImage = async (revision: string): Promise<string | undefined> => {
    const view = (await api.call('GET', api.rolloutPath(m.namespace, m.name, '/workload'))).body as { revisions?: { id: string; images: Record<string, string> }[] };
    return view.revisions?.find((r) => r.id === revision)?.images.app;
  };
  const scale = async (): Promise<void> => {
    m.replicas = rng.int(3, 5);
    const body = { spec: { replicas: m.replicas } };
    if (m.kind === 'StatefulSet') await apps.patchNamespacedStatefulSet({ name: m.name, namespace: m.namespace, body }, mergePatch);
    else await apps.patchNamespacedDeployment({ name: m.name, namespace: m.namespace, body }, mergePatch);
  };
  const undo = async (): Promise<void> => {
    watcher.clearCaps();
    await api.command(m.namespace, m.name, 'undo');
  };
  try {
    while (Date.now() < end) {
      const st = (await api.call('GET', api.rolloutPath(m.namespace, m.name, '/status'))).body as unknown as StatusResponse;
      const rel = st.release;
      const awaiting = rel !== null && rel.kind === 'release' && st.step?.state === 'StepPaused' && m.steps[st.step.index]?.pause.type === 'approval';
      let choice: string;
      if (st.paused.user) choice = rng.weighted({ resume: 60, nothing: 40 });
      else if (rel === null) choice = rng.weighted({ release: 75, scale: 12, undo: 8, nothing: 5 });
      else if (rel.failure !== null) choice = rng.weighted({ retry: 40, abort: 50, release: 10 });
      else if (awaiting) choice = rng.weighted({ approve: 62, abort: 8, release: 8, scale: 7, pause: 6, undo: 3, nothing: 6 });
      else choice = rng.weighted({ nothing: 72, release: 6, scale: 8, pause: 6, abort: 5, undo: 3 });
      switch (choice) {
        case 'release': await release(); break;
        case 'scale': await scale(); break;
        case 'undo': await undo(); break;
        case 'approve': {
          // For the release seen waiting (the API records its id): an approval never carries over to another.
          const image = st.step?.index === 0 && rel ? await waitingImage(rel.targetRevision) : undefined;
          if (image !== undefined) watcher.capPods(image, Number.POSITIVE_INFINITY);
          const code = await api.command(m.namespace, m.name, 'approve', { stepIndex: st.step?.index, ...(rel ? { releaseId: rel.id } : {}) });
          if (image !== undefined && (code === 202 || code === 200)) approved.add(image);
          else if (image !== undefined && !approved.has(image)) watcher.capPods(image, 1); // refused, and never approved before
          break;
        }
        case 'nothing': break;
        default: await api.command(m.namespace, m.name, choice);
      }
      await sleep(rng.int(800, 3500));
    }
  } catch (err) {
    violations.push(`${m.namespace}: the user could not go on: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Brings the rollout to rest: approves, resumes, aborts a failed release, until nothing is in flight. */
export async function drain(m: FleetMember, api: SoakApi, status: (m: FleetMember) => Promise<StatusResponse>, watcher: Watcher, violations: string[]): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const st = await status(m);
    if (st.settled) return;
    if (st.paused.user) await api.command(m.namespace, m.name, 'resume');
    else if (st.phase === 'Degraded' && /no longer retains/.test(st.message)) {
      // A rollback or undo whose template the workload pruned: what its reason asks of the user is
      // a template of their own, here a release of a new image (gated at one pod like any other).
      m.images += 1;
      watcher.capPods(IMAGE(m.images), 1);
      await api.command(m.namespace, m.name, 'release', { images: { app: IMAGE(m.images) } });
    } else if (st.release?.failure) await api.command(m.namespace, m.name, 'abort');
    else if (st.release?.kind === 'release' && st.step?.state === 'StepPaused' && m.steps[st.step.index]?.pause.type === 'approval') {
      if (st.step.index === 0) watcher.clearCaps();
      await api.command(m.namespace, m.name, 'approve', { stepIndex: st.step.index });
    }
    await sleep(1000);
  }
  const st = await status(m);
  violations.push(`${m.namespace}: not settled 5 minutes after the chaos ended: ${st.phase}: ${st.message}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
