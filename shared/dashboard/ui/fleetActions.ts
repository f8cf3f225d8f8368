// The fleet's buttons: Release, Approve, Pause, Resume, Abort, sent to the API's fleet routes (the
// same routes and authorization as `rollouts fleet …`). A button is enabled exactly when the API
// would accept the verb now: both ask fleetCommandProblem (shared/fleet/commands.ts), and a disabled
// button says why. Release, Approve and Abort move pods in many clusters, so each is confirmed in a
// dialog first; Release's dialog takes the new images (container=image), or none for a GitOps
// release of the templates the members hold.
import { useState } from 'preact/hooks';
import { fleetCommandProblem, waveAwaitingApproval } from '../../fleet/commands.ts';
import type { FleetCommandBody, FleetState } from '../../fleet/types.ts';
import type { DashboardFleetVerb } from '../types.ts';
import { commandNote, confirmDialog } from './actions.ts';
import { dashboardApi } from './api.ts';
import { html } from './html.ts';

interface FleetAction {
  verb: DashboardFleetVerb;
  label: string;
  confirm?: (name: string, state: FleetState) => string;
}

const ACTIONS: readonly FleetAction[] = [
  { verb: 'release', label: 'Release', confirm: (n) => `Start a fleet release of ${n}? Each cluster's template changes when its wave opens.` },
  {
    verb: 'approve', label: 'Approve',
    confirm: (n, s) => {
      const wave = s.release ? waveAwaitingApproval(s.release) : undefined;
      return `Approve wave "${wave?.spec.name ?? '?'}" of ${n}? ${s.userPaused ? 'The fleet stays paused: no wave opens until Resume.' : 'The next wave opens.'}`;
    },
  },
  { verb: 'pause', label: 'Pause' },
  { verb: 'resume', label: 'Resume' },
  {
    verb: 'abort', label: 'Abort',
    confirm: (n, s) => `Abort fleet release ${s.release?.id ?? ''} of ${n}? Every member released or releasing rolls back to its stable revision.`,
  },
];

/** "app=nginx:1.28, sidecar=envoy:1.30" → {app: …, sidecar: …}; a problem names the part at fault. */
export function parseImages(text: string): { images: Record<string, string> } | { problem: string } {
  const images: Record<string, string> = {};
  for (const part of text.split(/[\s,]+/).filter((p) => p !== '')) {
    const at = part.indexOf('=');
    if (at <= 0 || at === part.length - 1) return { problem: `"${part}" is not container=image` };
    images[part.slice(0, at)] = part.slice(at + 1);
  }
  return { images };
}

function problemOf(verb: DashboardFleetVerb, state: FleetState): string | null {
  return fleetCommandProblem(state, { type: verb } as FleetCommandBody)?.reason ?? null;
}

export function FleetActions({ name, state, onDone }: { name: string; state: FleetState; onDone: () => void }) {
  const [asking, setAsking] = useState<FleetAction | null>(null);
  const [images, setImages] = useState('');
  const [note, setNote] = useState<{ text: string; bad: boolean } | null>(null);
  const send = async (a: FleetAction) => {
    let body: Record<string, unknown> = {};
    if (a.verb === 'release') {
      const parsed = parseImages(images);
      if ('problem' in parsed) return setNote({ text: `release not sent: ${parsed.problem}`, bad: true });
      if (Object.keys(parsed.images).length > 0) body = { images: parsed.images };
    }
    setAsking(null);
    setNote(await commandNote(a.verb, dashboardApi.fleetCommand(name, a.verb, body)));
    onDone();
  };
  return html`
    <div class="actions" data-testid="fleet-actions">
      ${ACTIONS.map((a) => {
        const problem = problemOf(a.verb, state);
        return html`
          <button type="button" class=${`action action-${a.verb}`} data-verb=${a.verb} disabled=${problem !== null} title=${problem ?? ''}
            onClick=${() => (a.confirm ? setAsking(a) : void send(a))}>${a.label}</button>`;
      })}
      ${note ? html`<span class=${note.bad ? 'note problem' : 'note'} role="status">${note.text}</span>` : null}
      ${asking ? confirmDialog({
        text: asking.confirm?.(name, state), verb: asking.verb, label: asking.label, onCancel: () => setAsking(null), onOk: () => void send(asking),
        extra: asking.verb === 'release' ? html`
          <label class="field">New images <code>container=image</code>, comma-separated (none: release what each member holds)
            <input type="text" data-testid="release-images" value=${images} placeholder="app=nginx:1.28"
              onInput=${(e: Event) => setImages((e.target as HTMLInputElement).value)} />
          </label>` : null,
      }) : null}
    </div>`;
}
