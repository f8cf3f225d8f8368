// What `rollouts serve --verbose` printed in a window, counted: its reconcile passes (one line each
// when a pass ends, shared/local/localMode.ts onResult: "reconcile <key> (<reason>): …"), the
// delayed runs it scheduled ("next pass of <key> at … (<reason>)") and its transitions ("event
// <type>: …", shared/local/adapters.ts printingPublisher), as the fleet bench bills them.
import { FLEET_KEY_PREFIX } from '../../shared/fleet/key.ts';

export interface ServeUnits {
  /** Passes by key kind: the fleet's own ("F#name"), and its members' (rollouts). */
  reconciles: { fleet: number; member: number; byReason: Record<string, number> };
  /** Runs scheduled with a delay (deployed: the standard trigger queue). */
  delayedRuns: number;
  /** Transitions published (deployed: EventBridge events), a rollout's and a fleet's. */
  events: { rollout: number; fleet: number };
  /** Passes that threw and were retried. */
  failedPasses: number;
}

const PASS = /(?:^|\s)reconcile (\S+) \(([^)]+)\): /;
const SCHEDULED = /(?:^|\s)next pass of \S+ at \S+ \([^)]+\)/;
const EVENT = /(?:^|\s)event ([^:]+): /;
const FAILED = /(?:^|\s)reconcile \S+ failed, retrying: /;

export function countServeLines(lines: readonly string[]): ServeUnits {
  const out: ServeUnits = { reconciles: { fleet: 0, member: 0, byReason: {} }, delayedRuns: 0, events: { rollout: 0, fleet: 0 }, failedPasses: 0 };
  for (const line of lines) {
    const pass = PASS.exec(line);
    if (pass) {
      const [, key, reason] = pass as unknown as [string, string, string];
      if (key.startsWith(FLEET_KEY_PREFIX)) out.reconciles.fleet += 1;
      else out.reconciles.member += 1;
      out.reconciles.byReason[reason] = (out.reconciles.byReason[reason] ?? 0) + 1;
      continue;
    }
    if (SCHEDULED.test(line)) out.delayedRuns += 1;
    else if (FAILED.test(line)) out.failedPasses += 1;
    else {
      const event = EVENT.exec(line);
      if (event) {
        if (event[1]?.startsWith('Fleet ')) out.events.fleet += 1;
        else out.events.rollout += 1;
      }
    }
  }
  return out;
}
