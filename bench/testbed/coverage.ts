// How much of a run each invariant of a watcher judged (issue 23: a "0 violations" says as much as
// the checks that ran). Per invariant, the watcher says in which mode it is from a moment on:
// 'judged' (the full rule), 'narrowed:<rule>' (judged by the narrow native rule that replaces it at
// that moment, e.g. availability after a scale-up) or 'exempt:<rule>' (not judged, each such rule
// with its native-behaviour test); and counts the samples it judged or exempted. report() turns the
// modes into seconds over a window (the chaos), leaving out a stretch (the kube-controller-manager
// outage), and the share of it the invariant was judged, in full or narrowed.

export interface InvariantCoverage {
  /** Seconds of the window outside the left-out stretch. */
  seconds: number;
  /** Of them, seconds judged in full, and by each narrow rule. */
  judgedSeconds: number;
  narrowedSeconds: Record<string, number>;
  /** Of them, seconds not judged, per exemption. */
  exemptSeconds: Record<string, number>;
  /** Checks made, and checks an exemption let pass (per exemption). */
  samples: number;
  exemptSamples: Record<string, number>;
}

export interface Window {
  from: number;
  to: number;
  /** A stretch inside it not counted (the kube-controller-manager outage). */
  leaveOut?: { from: number; to: number };
}

export class Coverage {
  private readonly modes = new Map<string, { at: number; mode: string }[]>();
  private readonly samples = new Map<string, { total: number; exempt: Record<string, number> }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** `invariant` is in `mode` from now on ('judged', 'narrowed:<rule>', 'exempt:<rule>'). */
  mode(invariant: string, mode: string): void {
    const list = this.modes.get(invariant) ?? [];
    if (list.at(-1)?.mode !== mode) list.push({ at: this.now(), mode });
    this.modes.set(invariant, list);
  }

  /** One check of `invariant`; `exemptBy`: the exemption that let it pass unjudged. */
  sample(invariant: string, exemptBy?: string): void {
    const s = this.samples.get(invariant) ?? { total: 0, exempt: {} };
    s.total += 1;
    if (exemptBy !== undefined) s.exempt[exemptBy] = (s.exempt[exemptBy] ?? 0) + 1;
    this.samples.set(invariant, s);
  }

  report(window: Window): Record<string, InvariantCoverage> {
    const out: Record<string, InvariantCoverage> = {};
    for (const invariant of new Set([...this.modes.keys(), ...this.samples.keys()])) {
      const c: InvariantCoverage = { seconds: 0, judgedSeconds: 0, narrowedSeconds: {}, exemptSeconds: {}, samples: 0, exemptSamples: {} };
      const list = this.modes.get(invariant) ?? [];
      for (let i = 0; i < list.length; i += 1) {
        const entry = list[i] as { at: number; mode: string };
        const end = list[i + 1]?.at ?? window.to;
        const ms = counted(entry.at, end, window);
        if (ms <= 0) continue;
        const [kind, rule = ''] = splitMode(entry.mode);
        if (kind === 'judged') c.judgedSeconds += ms / 1000;
        else if (kind === 'narrowed') c.narrowedSeconds[rule] = (c.narrowedSeconds[rule] ?? 0) + ms / 1000;
        else c.exemptSeconds[rule] = (c.exemptSeconds[rule] ?? 0) + ms / 1000;
      }
      // Before the first mode the watcher was not there: not judged.
      const first = list[0]?.at ?? window.to;
      const before = counted(window.from, first, window);
      if (before > 0) c.exemptSeconds['not watching yet'] = before / 1000;
      c.seconds = counted(window.from, window.to, window) / 1000;
      const s = this.samples.get(invariant);
      c.samples = s?.total ?? 0;
      c.exemptSamples = { ...(s?.exempt ?? {}) };
      out[invariant] = c;
    }
    return out;
  }
}

/** Share of `c.seconds` judged, in full or by a narrow rule. */
export function judgedShare(c: InvariantCoverage): number {
  if (c.seconds <= 0) return 1;
  return (c.judgedSeconds + Object.values(c.narrowedSeconds).reduce((a, b) => a + b, 0)) / c.seconds;
}

/** Sums coverage records of many watchers, invariant by invariant. */
export function mergeCoverage(records: Record<string, InvariantCoverage>[]): Record<string, InvariantCoverage> {
  const out: Record<string, InvariantCoverage> = {};
  for (const record of records) {
    for (const [invariant, c] of Object.entries(record)) {
      const o = out[invariant] ?? { seconds: 0, judgedSeconds: 0, narrowedSeconds: {}, exemptSeconds: {}, samples: 0, exemptSamples: {} };
      o.seconds += c.seconds;
      o.judgedSeconds += c.judgedSeconds;
      o.samples += c.samples;
      addInto(o.narrowedSeconds, c.narrowedSeconds);
      addInto(o.exemptSeconds, c.exemptSeconds);
      addInto(o.exemptSamples, c.exemptSamples);
      out[invariant] = o;
    }
  }
  return out;
}

function addInto(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

function splitMode(mode: string): [string, string?] {
  const i = mode.indexOf(':');
  return i < 0 ? [mode] : [mode.slice(0, i), mode.slice(i + 1)];
}

/** Milliseconds of [a, b) inside the window and outside its left-out stretch. */
function counted(a: number, b: number, w: Window): number {
  const overlap = (x: number, y: number, u: number, v: number) => Math.max(0, Math.min(y, v) - Math.max(x, u));
  const inWindow = overlap(a, b, w.from, w.to);
  if (!w.leaveOut) return inWindow;
  return inWindow - overlap(Math.max(a, w.from), Math.min(b, w.to), w.leaveOut.from, w.leaveOut.to);
}
