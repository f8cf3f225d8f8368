// Release windows: when a release may move pods. Pure: instants in, instants out; the only
// calendar knowledge is the platform's IANA database through Intl.
//
// Rule: an instant is inside a window when its *local wall-clock reading* in the window's time zone
// falls on one of `days` and within [start, end). Consequences at DST changes (by design):
//  - spring-forward gap: wall times that never happen open nothing. A window 02:30–03:30 on the
//    Paris spring-forward day opens at the jump (03:00 local) and is an hour shorter that day; a
//    window entirely inside the gap (02:00–02:30) does not open that day.
//  - fall-back overlap: a repeated wall time counts both times, so a window covering 02:00–03:00 on
//    the Paris fall-back day is open for two real hours.
// Windows do not cross midnight (end > start; "24:00" means end of day): write two windows instead.
import type { ReleaseWindow, Weekday } from './types.ts';
import { WEEKDAYS } from './types.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How far ahead nextWindowOpening / windowClosesAt look (a weekly window always recurs within it). */
export const WINDOW_SEARCH_DAYS = 8;

/** "HH:MM" → minutes after midnight; "24:00" only when `allowEndOfDay`. Null when malformed. */
export function parseClock(s: string, allowEndOfDay: boolean): number | null {
  if (allowEndOfDay && s === '24:00') return 24 * 60;
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(s);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** True when the platform's IANA database knows `timeZone`. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch (err) {
    if (err instanceof RangeError) return false;
    throw err;
  }
}

// Formatters are costly to build and immutable: memoising them keeps this module pure.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23',
      year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock reading of instant `t` in `timeZone`, encoded as if it were a UTC timestamp (ms). */
function wallClock(timeZone: string, t: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(t)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second) + (((t % 1000) + 1000) % 1000);
}

function offsetAt(timeZone: string, t: number): number {
  return wallClock(timeZone, t) - t;
}

function weekdayOfWall(wall: number): Weekday {
  const sundayFirst = new Date(wall).getUTCDay();
  return WEEKDAYS[(sundayFirst + 6) % 7] as Weekday;
}

function startOfWallDay(wall: number): number {
  return Math.floor(wall / DAY) * DAY;
}

function minutes(hhmm: string, allowEndOfDay: boolean): number {
  const m = parseClock(hhmm, allowEndOfDay);
  if (m === null) throw new RangeError(`invalid window time "${hhmm}"`);
  return m;
}

function isOpenIn(w: ReleaseWindow, t: number): boolean {
  const wall = wallClock(w.timeZone, t);
  if (!w.days.includes(weekdayOfWall(wall))) return false;
  const ms = wall - startOfWallDay(wall);
  return ms >= minutes(w.start, false) * MINUTE && ms < minutes(w.end, true) * MINUTE;
}

/** Every instant whose wall-clock reading is `wall`: none in a DST gap, two in an overlap. */
function instantsAtWall(timeZone: string, wall: number): number[] {
  const offsets = new Set<number>();
  // The true instant is within ±14 h of `wall`; sampling offsets over ±24 h catches both sides of a change.
  for (let k = -4; k <= 4; k++) offsets.add(offsetAt(timeZone, wall + k * 6 * HOUR));
  const found = [...offsets].map((o) => wall - o).filter((t) => wallClock(timeZone, t) === wall);
  return [...new Set(found)];
}

/** Instants in (from, to] where the zone's UTC offset changes (first instant of the new offset). */
function offsetChanges(timeZone: string, from: number, to: number): number[] {
  const changes: number[] = [];
  const stepMs = 6 * HOUR;
  let prev = from;
  let prevOffset = offsetAt(timeZone, prev);
  for (let t = from + stepMs; prev < to; t += stepMs) {
    const next = Math.min(t, to);
    const nextOffset = offsetAt(timeZone, next);
    if (nextOffset !== prevOffset) {
      // Bisect on whole seconds: offsets only change on second boundaries.
      let lo = Math.floor(prev / 1000);
      let hi = Math.ceil(next / 1000);
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(timeZone, mid * 1000) === prevOffset) lo = mid;
        else hi = mid;
      }
      changes.push(hi * 1000);
    }
    prev = next;
    prevOffset = nextOffset;
  }
  return changes;
}

/**
 * Instants in the search range where a window's state can flip: its start (opening) or end (closing)
 * on one of its days, and every UTC-offset change of its zone (the wall clock jumps).
 */
function boundaryInstants(w: ReleaseWindow, edge: 'start' | 'end', from: number, to: number): number[] {
  const at = edge === 'start' ? minutes(w.start, false) : minutes(w.end, true);
  const out = offsetChanges(w.timeZone, from, to);
  const firstDay = startOfWallDay(wallClock(w.timeZone, from)) - DAY;
  const lastDay = startOfWallDay(wallClock(w.timeZone, to)) + DAY;
  for (let day = firstDay; day <= lastDay; day += DAY) {
    if (w.days.includes(weekdayOfWall(day))) out.push(...instantsAtWall(w.timeZone, day + at * MINUTE));
  }
  return out;
}

/** True when `at` lies in at least one window. No windows = always open. */
export function isWindowOpen(windows: readonly ReleaseWindow[], at: Date): boolean {
  return windows.length === 0 || windows.some((w) => isOpenIn(w, at.getTime()));
}

/**
 * The earliest instant ≥ `after` at which some window is open (`after` itself when open now), looking
 * at most WINDOW_SEARCH_DAYS ahead; null when none opens in that time.
 */
export function nextWindowOpening(windows: readonly ReleaseWindow[], after: Date): Date | null {
  if (isWindowOpen(windows, after)) return new Date(after.getTime());
  return nextOpeningWindow(windows, after)?.at ?? null;
}

/**
 * The next opening after `after` (which is outside every window) and the window that opens then
 * (the first listed, when several open at once), looking at most WINDOW_SEARCH_DAYS ahead.
 */
export function nextOpeningWindow(windows: readonly ReleaseWindow[], after: Date): { at: Date; window: ReleaseWindow } | null {
  const from = after.getTime();
  const to = from + WINDOW_SEARCH_DAYS * DAY;
  const candidates = windows
    .flatMap((w) => boundaryInstants(w, 'start', from, to))
    .filter((t) => t > from && t <= to)
    .sort((a, b) => a - b);
  const first = candidates.find((t) => isWindowOpen(windows, new Date(t)));
  if (first === undefined) return null;
  const window = windows.find((w) => isOpenIn(w, first)) as ReleaseWindow;
  return { at: new Date(first), window };
}

/** An instant as the window's zone reads it, e.g. "Mon 09:00 Europe/Paris". */
export function wallClockLabel(at: Date, timeZone: string): string {
  const wall = wallClock(timeZone, at.getTime());
  const ms = wall - startOfWallDay(wall);
  const hh = String(Math.floor(ms / HOUR)).padStart(2, '0');
  const mm = String(Math.floor((ms % HOUR) / MINUTE)).padStart(2, '0');
  return `${weekdayOfWall(wall)} ${hh}:${mm} ${timeZone}`;
}

/**
 * When the open period containing `at` ends: the first instant after `at` at which no window is open
 * (windows that overlap or touch count as one period). Null when no window is open at `at`, or when
 * the period does not end within WINDOW_SEARCH_DAYS (e.g. an empty list: always open).
 */
export function windowClosesAt(windows: readonly ReleaseWindow[], at: Date): Date | null {
  if (windows.length === 0 || !isWindowOpen(windows, at)) return null;
  const from = at.getTime();
  const to = from + WINDOW_SEARCH_DAYS * DAY;
  const candidates = windows
    .flatMap((w) => boundaryInstants(w, 'end', from, to))
    .filter((t) => t > from && t <= to)
    .sort((a, b) => a - b);
  const first = candidates.find((t) => !isWindowOpen(windows, new Date(t)));
  return first === undefined ? null : new Date(first);
}
