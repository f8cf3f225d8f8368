// `--steps` syntax: comma-separated `<replicas>[:<pause>]` items, e.g. `1,50%:60s,100%`.
//   replicas  an integer (pods) or a percent ("50%"), same rules as steps[].replicas in a Rollout
//   pause     approval | none | <n>s   (bare items follow Kruise: wait for approval, except a last
//             step of "100%", which never pauses)
import type { FieldIssue } from '../errors.ts';
import { ValidationError } from '../errors.ts';
import { replicasProblem } from '../rollout/intOrPercent.ts';
import { normaliseSteps } from '../rollout/spec.ts';
import type { StepDoc } from '../rollout/specSchema.ts';
import { MAX_STEPS } from '../rollout/specSchema.ts';
import { decreasingStepIssues } from '../rollout/specRules.ts';
import type { Step } from '../rollout/types.ts';

export const STEPS_SYNTAX_HELP = `--steps is a comma-separated list of <replicas>[:<pause>]:
  replicas  pods (e.g. 1) or a percent of the workload (e.g. 50%)
  pause     approval | none | <n>s (seconds); without one, a step waits for
            approval, except a last step of 100%, which never pauses (Kruise)`;

const MAX_PAUSE_SECONDS = 2_147_483_647;

function parseReplicas(raw: string): number | string {
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

/** `pause` part → Kruise `pause` value (undefined = approval), or a reason. */
function parsePause(raw: string | undefined): { pause: StepDoc['pause'] } | { problem: string } {
  if (raw === undefined || raw === 'approval') return { pause: undefined };
  if (raw === 'none') return { pause: { duration: 0 } };
  const m = /^(\d+)s$/.exec(raw);
  if (m && Number(m[1]) <= MAX_PAUSE_SECONDS) return { pause: { duration: Number(m[1]) } };
  return { problem: `pause must be approval, none or <n>s (e.g. 60s), not "${raw}"` };
}

/** Parses `--steps`; throws ValidationError naming each bad item (paths like `item 2 ("150%")`). */
export function parseStepsOption(text: string): Step[] {
  const items = text.split(',').map((s) => s.trim());
  const issues: FieldIssue[] = [];
  const docs: StepDoc[] = [];
  const label = (i: number) => `item ${i + 1} (${JSON.stringify(items[i])})`;
  items.forEach((item, i) => {
    const [rawReplicas = '', rawPause, ...extra] = item.split(':');
    const replicas = parseReplicas(rawReplicas);
    const replicasIssue = rawReplicas === '' ? 'is empty' : replicasProblem(replicas);
    const pause = parsePause(rawPause);
    if (replicasIssue) issues.push({ path: label(i), reason: `replicas ${replicasIssue}` });
    if (extra.length > 0) issues.push({ path: label(i), reason: 'write <replicas>[:<pause>] with at most one ":"' });
    if ('problem' in pause) {
      issues.push({ path: label(i), reason: pause.problem });
      return;
    }
    // Kruise ignores any pause on a last "100%" step; asking for one explicitly is a mistake.
    const pauses = rawPause !== undefined && pause.pause?.duration !== 0;
    if (i === items.length - 1 && rawReplicas === '100%' && pauses) {
      issues.push({ path: label(i), reason: 'a last step of 100% never pauses (Kruise); drop the pause' });
    }
    docs.push({ replicas, pause: pause.pause });
  });
  if (items.length > MAX_STEPS) issues.push({ path: '--steps', reason: `at most ${MAX_STEPS} steps are allowed` });
  issues.push(...decreasingStepIssues(items.map((s) => parseReplicas(s.split(':')[0] ?? '')), label));
  if (issues.length > 0) throw new ValidationError(issues);
  return normaliseSteps(docs);
}
