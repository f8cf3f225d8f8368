// The command buttons. Approve, abort, retry and undo move pods, so each asks for confirmation in a
// dialog first; pause and resume are sent at once. A button that does not fit the state is disabled
// (the API would answer that the command was ignored).
import { useState } from 'preact/hooks';
import type { ReleaseState, RolloutKey } from '../../rollout/types.ts';
import type { DashboardVerb } from '../types.ts';
import { dashboardApi } from './api.ts';
import { html } from './html.ts';

interface Action {
  verb: DashboardVerb;
  label: string;
  /** What the dialog asks; absent: sent without asking. */
  confirm?: (key: RolloutKey, state: ReleaseState) => string;
  enabled: (state: ReleaseState) => boolean;
}

const awaitingApproval = (s: ReleaseState) => s.release?.kind === 'release' && s.release.stepState === 'StepPaused' && !s.release.finalizing && s.release.failure === null;

const ACTIONS: readonly Action[] = [
  {
    verb: 'approve', label: 'Approve', enabled: awaitingApproval,
    // Paused, an approval is kept but nothing moves until Resume (as `rollouts approve` says).
    confirm: (k, s) => `Approve step ${(s.release?.stepIndex ?? 0) + 1} of ${k.name}? ${s.userPaused ? 'It stays paused: nothing moves until Resume.' : 'The release moves on to the next batch.'}`,
  },
  { verb: 'pause', label: 'Pause', enabled: (s) => !s.userPaused },
  { verb: 'resume', label: 'Resume', enabled: (s) => s.userPaused },
  { verb: 'abort', label: 'Abort', enabled: (s) => s.release?.kind === 'release', confirm: (k) => `Abort the release of ${k.name}? Every pod returns to the stable revision.` },
  { verb: 'retry', label: 'Retry', enabled: (s) => s.release?.failure != null, confirm: (k) => `Retry the failed batch of ${k.name}?` },
  { verb: 'undo', label: 'Undo', enabled: (s) => s.stableRevision !== null, confirm: (k) => `Undo ${k.name} to its previous revision? Its pods are replaced.` },
];

/** What the page says once `verb` was sent: recorded, already recorded, or why it failed. */
export async function commandNote(verb: string, sent: Promise<{ duplicate?: boolean }>): Promise<{ text: string; bad: boolean }> {
  try {
    const res = await sent;
    return { text: res.duplicate ? `${verb} was already recorded` : `${verb} recorded`, bad: false };
  } catch (err) {
    return { text: `${verb} failed: ${err instanceof Error ? err.message : String(err)}`, bad: true };
  }
}

/** The confirmation a button asks for before its command is sent; `extra`: fields shown above the buttons. */
export function confirmDialog(d: { text: unknown; verb: string; label: string; onCancel: () => void; onOk: () => void; extra?: unknown }) {
  return html`
    <div class="dialog-backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-text" data-testid="confirm">
        <p id="confirm-text">${d.text}</p>
        ${d.extra ?? null}
        <div class="dialog-buttons">
          <button type="button" data-testid="confirm-cancel" onClick=${d.onCancel}>Cancel</button>
          <button type="button" class=${`primary action-${d.verb}`} data-testid="confirm-ok" onClick=${d.onOk}>${d.label}</button>
        </div>
      </div>
    </div>`;
}

export function Actions({ rolloutKey, state, onDone }: { rolloutKey: RolloutKey; state: ReleaseState; onDone: () => void }) {
  const [asking, setAsking] = useState<Action | null>(null);
  const [note, setNote] = useState<{ text: string; bad: boolean } | null>(null);
  const send = async (a: Action) => {
    setAsking(null);
    setNote(await commandNote(a.verb, dashboardApi.command(rolloutKey, a.verb)));
    onDone();
  };
  return html`
    <div class="actions" data-testid="actions">
      ${ACTIONS.map((a) => html`
        <button type="button" class=${`action action-${a.verb}`} data-verb=${a.verb} disabled=${!a.enabled(state)}
          onClick=${() => (a.confirm ? setAsking(a) : void send(a))}>${a.label}</button>`)}
      ${note ? html`<span class=${note.bad ? 'note problem' : 'note'} role="status">${note.text}</span>` : null}
      ${asking ? confirmDialog({ text: asking.confirm?.(rolloutKey, state), verb: asking.verb, label: asking.label, onCancel: () => setAsking(null), onOk: () => void send(asking) }) : null}
    </div>`;
}
