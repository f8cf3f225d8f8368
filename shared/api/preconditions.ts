// Fast feedback for commands that obviously cannot apply to the state as stored. The planner is the
// authority (it would consume such a command with a "Command Ignored" event); answering 409 at once
// just spares the user a round trip. Only checks the planner makes the same way (shared/rollout/commands.ts),
// and nothing that needs the cluster (undo targets are resolved against live revisions).
import type { CommandBody, ReleaseState, RolloutSpec } from '../rollout/types.ts';
import { isBeingDeleted } from './views.ts';

/** Why `cmd` cannot apply now, or null when it may. */
export function commandRejection(cmd: CommandBody, spec: RolloutSpec, s: ReleaseState): string | null {
  if (cmd.type !== 'delete' && isBeingDeleted(s)) return 'the rollout is being deleted';
  const rel = s.release;
  switch (cmd.type) {
    case 'approve': {
      if (!rel || rel.kind !== 'release' || rel.finalizing) return 'no release is waiting for approval';
      const step = spec.steps[rel.stepIndex];
      if (rel.stepState !== 'StepPaused' || step?.pause.type !== 'approval') {
        return `step ${rel.stepIndex + 1} is ${rel.stepState}, not awaiting approval`;
      }
      if (cmd.stepIndex !== undefined && cmd.stepIndex !== rel.stepIndex) {
        return `stepIndex ${cmd.stepIndex} is not the step waiting for approval: the release waits at step index ${rel.stepIndex} (step ${rel.stepIndex + 1})`;
      }
      if (cmd.releaseId !== undefined && cmd.releaseId !== rel.id) return `releaseId ${cmd.releaseId} is not the release waiting for approval (${rel.id} is)`;
      return null;
    }
    case 'pause':
      return s.userPaused ? 'already paused' : null;
    case 'resume':
      if (s.userPaused) return null;
      return spec.paused ? 'not paused by a command; the spec sets strategy.paused: change the Rollout instead' : 'not paused';
    case 'abort':
      return !rel || rel.kind !== 'release' ? 'no release in progress' : null;
    case 'retry':
      return !rel || rel.failure === null ? 'the release has not failed' : null;
    case 'undo':
      // A member's revisions are its fleet's to choose (the planner ignores it: shared/rollout/commands.ts).
      if (spec.fleet) return `a member of fleet ${spec.fleet.name} goes back with rollouts fleet abort, not undo`;
      return s.stableRevision === null && !rel ? 'the workload has not been adopted yet: there is no revision to go back to' : null;
    case 'release':
    case 'delete':
      return null;
    case 'permit':
    case 'revoke':
      // Recorded by a member's fleet through the store (shared/fleet), never accepted from the API.
      return `${cmd.type} is sent by a member's fleet only`;
  }
}
