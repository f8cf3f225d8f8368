// The published contract of fleet events on EventBridge, as shared/rollout/eventSchema.ts is for a
// rollout's: one zod definition, from which schemas/fleet-event.schema.json is generated
// (`npm run schemas`), so the two cannot drift. `detail` is the FleetEvent itself.
import * as z from 'zod';
import { causeSchema, eventBridgeEnvelope, type Exact } from '../rollout/eventSchema.ts';
import { FLEET_EVENT } from './events.ts';
import { FLEET_CAUSE_KINDS, FLEET_PHASES, type FleetCause, type FleetEvent } from './types.ts';

export const FLEET_EVENT_SCHEMA_ID = 'urn:serverless-rollouts:schema:fleet-event:v1';

const instant = z.iso.datetime({ offset: true }).describe('ISO 8601 instant');
const eventTypes = Object.values(FLEET_EVENT) as [string, ...string[]];

export const fleetCauseSchema = z.strictObject({
  kind: z.enum(FLEET_CAUSE_KINDS).describe('What the fleet waits on'),
  wave: z.string().nullable().describe('The wave it concerns'),
  cluster: z.string().nullable().describe('The member cluster it concerns'),
  detail: z.string().describe("The blocker in words: the member's own reason, the bake, the gate's last value"),
  since: instant.nullable(),
  until: instant.nullable().describe('When it ends by itself: a bake, a window opening, an unreachable member counted as failed'),
  member: causeSchema.nullable().describe("The member's own cause (its pod, gate, window, approval)"),
}).describe('The structured cause of the fleet\'s reason');

export const fleetEventSchema = z.strictObject({
  type: z.enum(eventTypes).describe('The transition; also the EventBridge detail-type'),
  fleet: z.strictObject({ name: z.string() }),
  releaseId: z.string().nullable().describe('f<n>: the fleet release this transition belongs to'),
  phase: z.enum(FLEET_PHASES).describe('The fleet\'s phase after the transition'),
  wave: z.string().nullable(),
  cluster: z.string().nullable(),
  message: z.string().describe('What happened'),
  at: instant,
  by: z.string().nullable().describe('The principal whose command caused it; null for the fleet\'s own moves'),
  reason: z.string().describe('The fleet\'s one-line reason after the transition (what `rollouts fleet get` shows)'),
  cause: fleetCauseSchema.nullable(),
  commandId: z.string().optional().describe('The id of the command that caused it'),
}).describe('A fleet transition (the EventBridge event detail)');

export const fleetEventBridgeSchema = eventBridgeEnvelope(eventTypes, fleetEventSchema, 'serverless-rollouts fleet transition event on EventBridge (source serverless-rollouts, detail-type = detail.type)');

/** The JSON Schema committed at schemas/fleet-event.schema.json. */
export function fleetEventJsonSchema(): Record<string, unknown> {
  return { $id: FLEET_EVENT_SCHEMA_ID, title: 'serverless-rollouts fleet transition event', ...z.toJSONSchema(fleetEventBridgeSchema, { target: 'draft-2020-12' }) };
}

const detailMatches: Exact<keyof z.infer<typeof fleetEventSchema>, keyof FleetEvent> = true;
const causeMatches: Exact<keyof z.infer<typeof fleetCauseSchema>, keyof FleetCause> = true;
void detailMatches;
void causeMatches;
