import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  isKnownTimeZone, isWindowOpen, nextWindowOpening, parseClock, windowClosesAt,
} from '../../../shared/rollout/windows.ts';
import type { ReleaseWindow, Weekday } from '../../../shared/rollout/types.ts';
import { WEEKDAYS } from '../../../shared/rollout/types.ts';

const at = (iso: string) => new Date(iso);
const win = (days: Weekday[], start: string, end: string, timeZone = 'UTC'): ReleaseWindow => ({ days, start, end, timeZone });
const iso = (d: Date | null) => d?.toISOString() ?? null;

// 2026-03-02 is a Monday.
const officeUtc = win(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], '09:00', '17:00');

describe('parseClock and isKnownTimeZone', () => {
  test('reads HH:MM, and 24:00 only as an end', () => {
    assert.equal(parseClock('00:00', false), 0);
    assert.equal(parseClock('23:59', false), 23 * 60 + 59);
    assert.equal(parseClock('24:00', true), 1440);
    for (const bad of ['24:00', '9:00', '12:60', '25:00', '12:00:00', ' 12:00']) assert.equal(parseClock(bad, false), null, bad);
  });

  test('knows IANA zones and nothing else', () => {
    assert.equal(isKnownTimeZone('Europe/Paris'), true);
    assert.equal(isKnownTimeZone('UTC'), true);
    assert.equal(isKnownTimeZone('Europe/Atlantis'), false);
    assert.equal(isKnownTimeZone(''), false);
  });
});

describe('isWindowOpen', () => {
  test('an empty list is always open', () => assert.equal(isWindowOpen([], at('2026-03-01T03:00:00Z')), true));

  const cases: [string, string, boolean][] = [
    ['just before start', '2026-03-02T08:59:59.999Z', false],
    ['at start (inclusive)', '2026-03-02T09:00:00Z', true],
    ['just before end', '2026-03-02T16:59:59.999Z', true],
    ['at end (exclusive)', '2026-03-02T17:00:00Z', false],
    ['on a day that is not listed (Saturday)', '2026-03-07T10:00:00Z', false],
  ];
  for (const [name, instant, open] of cases) test(`office hours UTC: ${name}`, () => assert.equal(isWindowOpen([officeUtc], at(instant)), open));

  test('reads the wall clock of the window zone: 09:00 Paris is 08:00Z in winter, 07:00Z in summer', () => {
    const paris = win(['Mon'], '09:00', '10:00', 'Europe/Paris');
    assert.equal(isWindowOpen([paris], at('2026-03-02T08:00:00Z')), true);
    assert.equal(isWindowOpen([paris], at('2026-03-02T07:30:00Z')), false);
    assert.equal(isWindowOpen([paris], at('2026-06-01T07:00:00Z')), true);
    assert.equal(isWindowOpen([paris], at('2026-06-01T08:00:00Z')), false);
  });

  test('takes the weekday in the window zone, not in UTC', () => {
    // Sunday 23:30Z is Monday 08:30 in Tokyo.
    assert.equal(isWindowOpen([win(['Mon'], '08:00', '09:00', 'Asia/Tokyo')], at('2026-03-01T23:30:00Z')), true);
    assert.equal(isWindowOpen([win(['Sun'], '08:00', '09:00', 'Asia/Tokyo')], at('2026-03-01T23:30:00Z')), false);
  });

  test('is open when any of several windows is', () => {
    const windows = [win(['Mon'], '09:00', '10:00'), win(['Mon'], '14:00', '15:00', 'Europe/Paris')];
    assert.equal(isWindowOpen(windows, at('2026-03-02T13:30:00Z')), true);
    assert.equal(isWindowOpen(windows, at('2026-03-02T12:00:00Z')), false);
  });
});

describe('nextWindowOpening', () => {
  test('is the instant itself when a window is open', () => {
    assert.equal(iso(nextWindowOpening([officeUtc], at('2026-03-02T10:00:00.123Z'))), '2026-03-02T10:00:00.123Z');
  });

  test('skips to the next listed day', () => {
    assert.equal(iso(nextWindowOpening([officeUtc], at('2026-03-06T17:00:00Z'))), '2026-03-09T09:00:00.000Z');
  });

  test('takes the earliest of several windows', () => {
    const windows = [win(['Wed'], '09:00', '10:00'), win(['Tue'], '13:00', '14:00', 'Europe/Paris')];
    assert.equal(iso(nextWindowOpening(windows, at('2026-03-02T12:00:00Z'))), '2026-03-03T12:00:00.000Z');
  });

  test('is null when no window opens within 8 days (a weekly window swallowed by a DST gap)', () => {
    // Sunday 02:00–02:01 Paris: just missed on 2022-03-20, does not exist on 2022-03-27 (spring-forward).
    const w = [win(['Sun'], '02:00', '02:01', 'Europe/Paris')];
    assert.equal(nextWindowOpening(w, at('2022-03-20T01:01:00Z')), null);
    assert.equal(iso(nextWindowOpening(w, at('2022-03-27T01:01:00Z'))), '2022-04-03T00:00:00.000Z');
  });
});

describe('release windows across DST changes', () => {
  // Europe/Paris springs forward on 2026-03-29 at 02:00 CET (01:00Z) to 03:00 CEST.
  test('Paris spring-forward: a window starting in the gap opens at the jump and is shorter', () => {
    const w = [win(['Sun'], '02:30', '03:30', 'Europe/Paris')];
    assert.equal(iso(nextWindowOpening(w, at('2026-03-28T12:00:00Z'))), '2026-03-29T01:00:00.000Z');
    assert.equal(iso(windowClosesAt(w, at('2026-03-29T01:00:00Z'))), '2026-03-29T01:30:00.000Z');
  });

  test('Paris spring-forward: a window entirely in the gap does not open that day', () => {
    const w = [win(['Sun'], '02:00', '02:30', 'Europe/Paris')];
    assert.equal(iso(nextWindowOpening(w, at('2026-03-28T12:00:00Z'))), '2026-04-05T00:00:00.000Z');
  });

  // Europe/Paris falls back on 2026-10-25 at 03:00 CEST (01:00Z) to 02:00 CET: 02:00–03:00 happens twice.
  test('Paris fall-back: a window in the repeated hour is open both times', () => {
    const w = [win(['Sun'], '02:00', '02:30', 'Europe/Paris')];
    assert.equal(iso(nextWindowOpening(w, at('2026-10-24T12:00:00Z'))), '2026-10-25T00:00:00.000Z');
    assert.equal(iso(windowClosesAt(w, at('2026-10-25T00:10:00Z'))), '2026-10-25T00:30:00.000Z');
    assert.equal(isWindowOpen(w, at('2026-10-25T00:45:00Z')), false);
    assert.equal(iso(nextWindowOpening(w, at('2026-10-25T00:45:00Z'))), '2026-10-25T01:00:00.000Z');
    assert.equal(iso(windowClosesAt(w, at('2026-10-25T01:00:00Z'))), '2026-10-25T01:30:00.000Z');
  });

  // America/New_York springs forward on 2026-03-08 at 02:00 EST (07:00Z) to 03:00 EDT.
  test('New York spring-forward: 01:00–04:00 lasts two real hours', () => {
    const w = [win(['Sun'], '01:00', '04:00', 'America/New_York')];
    assert.equal(iso(nextWindowOpening(w, at('2026-03-07T12:00:00Z'))), '2026-03-08T06:00:00.000Z');
    assert.equal(iso(windowClosesAt(w, at('2026-03-08T06:00:00Z'))), '2026-03-08T08:00:00.000Z');
  });

  // America/New_York falls back on 2026-11-01 at 02:00 EDT (06:00Z) to 01:00 EST.
  test('New York fall-back: 01:00–02:00 lasts two real hours', () => {
    const w = [win(['Sun'], '01:00', '02:00', 'America/New_York')];
    assert.equal(iso(nextWindowOpening(w, at('2026-10-31T12:00:00Z'))), '2026-11-01T05:00:00.000Z');
    assert.equal(iso(windowClosesAt(w, at('2026-11-01T05:00:00Z'))), '2026-11-01T07:00:00.000Z');
  });
});

describe('windowClosesAt', () => {
  test('is null when no window is open, and for an empty (always open) list', () => {
    assert.equal(windowClosesAt([officeUtc], at('2026-03-02T18:00:00Z')), null);
    assert.equal(windowClosesAt([], at('2026-03-02T18:00:00Z')), null);
  });

  test('is the end of the open window', () => {
    assert.equal(iso(windowClosesAt([officeUtc], at('2026-03-02T10:00:00Z'))), '2026-03-02T17:00:00.000Z');
  });

  test('runs through windows that touch across midnight ("24:00" then "00:00")', () => {
    const windows = [win(['Mon'], '22:00', '24:00'), win(['Tue'], '00:00', '06:00')];
    assert.equal(iso(windowClosesAt(windows, at('2026-03-02T23:00:00Z'))), '2026-03-03T06:00:00.000Z');
  });

  test('runs through overlapping windows in different zones', () => {
    const windows = [win(['Mon'], '09:00', '12:00'), win(['Mon'], '12:30', '15:00', 'Europe/Paris')];
    assert.equal(iso(windowClosesAt(windows, at('2026-03-02T10:00:00Z'))), '2026-03-02T14:00:00.000Z');
  });
});

describe('window search properties', () => {
  const zone = fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata');
  const window = fc.record({
    days: fc.subarray([...WEEKDAYS], { minLength: 1 }),
    start: fc.integer({ min: 0, max: 1438 }),
    length: fc.integer({ min: 1, max: 600 }),
    timeZone: zone,
  }).map(({ days, start, length, timeZone }): ReleaseWindow => {
    const hhmm = (m: number) => m === 1440 ? '24:00' : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    return { days, start: hhmm(start), end: hhmm(Math.min(1440, start + length)), timeZone };
  });
  const instant = fc.date({ min: at('2024-01-01T00:00:00Z'), max: at('2028-01-01T00:00:00Z'), noInvalidDate: true });

  test('the next opening is open, not before the search start, and closed just before (unless already open)', () => {
    fc.assert(fc.property(fc.array(window, { minLength: 1, maxLength: 3 }), instant, (windows, after) => {
      const o = nextWindowOpening(windows, after);
      if (o === null) return false;
      if (!isWindowOpen(windows, o) || o < after) return false;
      return o.getTime() === after.getTime() || !isWindowOpen(windows, new Date(o.getTime() - 1));
    }), { numRuns: 150 });
  });

  test('the close of an open period is closed, and open just before', () => {
    fc.assert(fc.property(fc.array(window, { minLength: 1, maxLength: 3 }), instant, (windows, after) => {
      const o = nextWindowOpening(windows, after);
      if (o === null) return false;
      const c = windowClosesAt(windows, o);
      if (c === null) return true; // open for the whole search horizon
      return c > o && !isWindowOpen(windows, c) && isWindowOpen(windows, new Date(c.getTime() - 1));
    }), { numRuns: 150 });
  });
});
