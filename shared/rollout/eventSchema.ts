// The published contract of our EventBridge events: one zod definition, from which the committed
// JSON Schema (schemas/rollout-event.schema.json, `npm run schemas`) is generated, so the two cannot
// drift; a unit test fails when the committed file is stale, and the tests validate emitted events
// against the committed file. `detail` is the RolloutEvent itself (shared/adapters/eventbridge/publisher.ts).
import * as z from 'zod';
import { CAUSE_KINDS, type Cause } from './cause.ts';
import { EVENT } from './events.ts';
import { PHASES, type RolloutEvent } from './types.ts';

/** Our transition events' source (infra/stack.ts EVENT_SOURCE, ROLLOUTS_EVENT_SOURCE). */
export const EVENT_SCHEMA_SOURCE = 'serverless-rollouts';
export const EVENT_SCHEMA_ID = 'urn:serverless-rollouts:schema:rollout-event:v1';

const instant = z.iso.datetime({ offset: true }).describe('ISO 8601 instant');
const eventTypes = Object.values(EVENT) as [string, ...string[]];

export const causeSchema = z.strictObject({
  kind: z.enum(CAUSE_KINDS).describe('What the rollout waits on or failed on'),
  object: z.string().nullable().describe('What blocks, kubectl-style: pod/web-7d9f-abc12, deployment/web, step/2, cluster/prod'),
  field: z.string().nullable().describe('For a broken contract, the field or annotation at fault'),
  detail: z.string().describe("The blocker's own words (kubelet, scheduler, controller), or the budget, the pause, the window"),
  since: instant.nullable().describe('When the blocker began, when known'),
  until: instant.nullable().describe('When it ends by itself: a timed pause, a window opening, a scheduled start'),
}).describe('The structured cause of the reason');

export const rolloutEventSchema = z.strictObject({
  type: z.enum(eventTypes).describe('The transition; also the EventBridge detail-type'),
  rollout: z.strictObject({ cluster: z.string(), namespace: z.string(), name: z.string() }),
  releaseId: z.string().nullable().describe('r<n>: the release this transition belongs to'),
  phase: z.enum(PHASES).describe('The phase after the transition'),
  stepIndex: z.number().int().min(0).nullable().describe('0-based step of the release, null outside a release'),
  message: z.string().describe('What happened'),
  at: instant,
  by: z.string().nullable().describe('The principal whose command caused it; null for the controller\'s own moves'),
  reason: z.string().describe('The rollout\'s one-line reason after the transition (what `rollouts get` shows)'),
  cause: causeSchema.nullable(),
  commandId: z.string().optional().describe('The id of the command that caused it (each accepted command leaves exactly one such event); absent for the controller\'s own moves'),
}).describe('A rollout transition (the EventBridge event detail)');

/** The whole EventBridge event around a detail of ours (a rollout's, a fleet's: shared/fleet/eventSchema.ts), as a rule or a consumer (SNS, SQS, Lambda) receives it. */
export function eventBridgeEnvelope<D extends z.ZodType>(types: [string, ...string[]], detail: D, description: string) {
  return z.object({
    version: z.string(),
    id: z.string(),
    'detail-type': z.enum(types),
    source: z.literal(EVENT_SCHEMA_SOURCE),
    // EventBridge always sets it; optional so that the envelope of an emulator (moto omits it) validates too.
    account: z.string().optional(),
    time: instant,
    region: z.string(),
    resources: z.array(z.string()),
    detail,
  }).describe(description);
}

export const eventBridgeEventSchema = eventBridgeEnvelope(eventTypes, rolloutEventSchema, 'serverless-rollouts transition event on EventBridge (source serverless-rollouts, detail-type = detail.type)');

/** The JSON Schema committed at schemas/rollout-event.schema.json. */
export function eventJsonSchema(): Record<string, unknown> {
  return { $id: EVENT_SCHEMA_ID, title: 'serverless-rollouts transition event', ...z.toJSONSchema(eventBridgeEventSchema, { target: 'draft-2020-12' }) };
}

// The schema describes exactly the type the planner emits (a compile error here means they drifted).
export type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const detailMatches: Exact<keyof z.infer<typeof rolloutEventSchema>, keyof RolloutEvent> = true;
const causeMatches: Exact<z.infer<typeof causeSchema>, Cause> = true;
void detailMatches;
void causeMatches;
