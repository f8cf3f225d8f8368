// A clock that follows real time plus an adjustable offset: pods become ready in real time on the
// test cluster, while release windows, deadlines and scheduled starts can be jumped over.
import type { Clock } from '../../shared/ports.ts';

export class TestClock implements Clock {
  offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Make `now()` return `at` (and keep running from there). */
  set(at: Date | string): void {
    this.offsetMs = new Date(at).getTime() - Date.now();
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}
