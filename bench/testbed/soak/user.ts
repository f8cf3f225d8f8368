// The soak's random user of one rollout, and the drain that brings it to rest afterwards. The user
// acts through local mode's API as a person might at each moment (approve, pause, resume, abort,
// retry, undo, release a new image, scale the workload like an HPA), and sets the approval gates
// the watchers check at every approval step: a new image is capped at its first approval step's
// batch, and each accepted approval lifts its gate to the next approval step's (none after the
// last). Gates change only when the API accepts the command: the new ones are set before it is sent
// (its pods may appear before the answer) and the old ones come back if it is refused, with what
// broke them meanwhile (bench/testbed/approvalCaps.ts, invariants.ts, setWatcher.ts).
import type { AppsV1Api } from '@kubernetes/client-node';
import type { StatusResponse } from '../../../shared/api/types.ts';
import type { IntOrPercent } from '../../../shared/rollout/types.ts';
import type { Random } from '../faults/prng.ts';
import type { InvariantWatcher } from '../invariants.ts';
import { mergePatch } from '../kube.ts';
import { IMAGE, type FleetMember } from './fleet.ts';
import type { SetWatcher } from './setWatcher.ts';
import type { SoakApi } from './soakApi.ts';

type Watcher = InvariantWatcher | SetWatcher;

/** The replicas of the first approval step after step `index` (-1: the first one), or null: none (no gate). */
export function gateAfter(m: FleetMember, index: number): IntOrPercent | null {
  for (let i = index + 1; i < m.steps.length; i += 1) {
    const step = m.steps[i];
    if (step?.pause.type === 'approval') return step.replicas;
  }
  return null;
}

/**
 * A command whose gates are set by `gates` before it is sent, kept if the API accepts it and put
 * back as they were if it refuses (what broke the old ones meanwhile is a violation).
 */
export async function gatedCommand(api: SoakApi, m: FleetMember, watcher: Watcher, verb: string, body: Record<string, unknown>, gates: () => void): Promise<number> {
  watcher.beginCommand();
  gates();
  let accepted = true;
  try {
    const code = await api.command(m.namespace, m.name, verb, body);
    accepted = code === 202 || code === 200;
    return code;
  } finally {
    watcher.endCommand(accepted);
  }
}

/** A release of the next image, gated at its first approval step. */
async function releaseNext(api: SoakApi, m: FleetMember, watcher: Watcher): Promise<void> {
  m.images += 1;
  const image = IMAGE(m.images);
  // No pod of an image never released (a refused release keeps it at 0).
  watcher.capStep(image, 0);
  await gatedCommand(api, m, watcher, 'release', { images: { app: image } }, () => watcher.capStep(image, gateAfter(m, -1)));
}

/** One rollout's random user until `end`: looks at the status, then acts as a person might at that moment. */
export async function actor(m: FleetMember, rng: Random, api: SoakApi, watcher: Watcher, apps: AppsV1Api, end: number, violations: string[]): Promise<void> {
  const release = () => releaseNext(api, m, watcher);
  /** The image of the release waiting at an approval (its approval lets more of its pods run). */
  const waitingImage = (revision: string) => imageOfRevision(api, m, revision);
  const scale = async (): Promise<void> => {
    m.replicas = rng.int(3, 5);
    const body = { spec: { replicas: m.replicas } };
    if (m.kind === 'StatefulSet') await apps.patchNamespacedStatefulSet({ name: m.name, namespace: m.namespace, body }, mergePatch);
    else await apps.patchNamespacedDeployment({ name: m.name, namespace: m.namespace, body }, mergePatch);
  };
  // An accepted undo may bring back any earlier image in full: no gate holds after it.
  const undo = async (): Promise<void> => {
    await gatedCommand(api, m, watcher, 'undo', {}, () => watcher.clearCaps());
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
          const index = st.step?.index ?? 0;
          const image = rel ? await waitingImage(rel.targetRevision) : undefined;
          await gatedCommand(api, m, watcher, 'approve', { stepIndex: index, ...(rel ? { releaseId: rel.id } : {}) }, () => {
            if (image !== undefined) watcher.capStep(image, gateAfter(m, index));
          });
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
      await releaseNext(api, m, watcher);
    } else if (st.release?.failure) await api.command(m.namespace, m.name, 'abort');
    else if (st.release?.kind === 'release' && st.step?.state === 'StepPaused' && m.steps[st.step.index]?.pause.type === 'approval') {
      const index = st.step.index;
      const image = await waitingImage(api, m, st.release.targetRevision);
      await gatedCommand(api, m, watcher, 'approve', { stepIndex: index, releaseId: st.release.id }, () => {
        if (image !== undefined) watcher.capStep(image, gateAfter(m, index));
      });
    }
    await sleep(1000);
  }
  const st = await status(m);
  violations.push(`${m.namespace}: not settled 5 minutes after the chaos ended: ${st.phase}: ${st.message}`);
}

/** The image of revision `revision` of the rollout's workload (the release's target). */
async function imageOfRevision(api: SoakApi, m: FleetMember, revision: string): Promise<string | undefined> {
  const view = (await api.call('GET', api.rolloutPath(m.namespace, m.name, '/workload'))).body as { revisions?: { id: string; images: Record<string, string> }[] };
  return view.revisions?.find((r) => r.id === revision)?.images.app;
}

const waitingImage = imageOfRevision;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
