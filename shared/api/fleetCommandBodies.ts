// Bodies of the fleet verbs (POST /v1/fleets/{name}/{verb}), strict like a rollout's
// (commandBodies.ts): an unknown field is an error. The fleet's own state decides the rest
// (shared/fleet/commands.ts fleetCommandProblem: 409).
import * as z from 'zod';
import type { FleetCommandBody } from '../fleet/types.ts';
import { parseBody } from './body.ts';
import { commandId, imagesSchema } from './commandBodies.ts';
import { CLUSTER_NAME, RULES } from './params.ts';

export const FLEET_VERBS = ['release', 'approve', 'pause', 'resume', 'abort', 'skip'] as const;
export type FleetVerb = (typeof FLEET_VERBS)[number];

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const bare = z.strictObject({ commandId });

const schemas = {
  release: z.strictObject({ commandId, images: imagesSchema.optional(), templatePatch: z.record(z.string(), z.unknown()).optional() }).superRefine((b, ctx) => {
    const given = [b.images, b.templatePatch].filter((v) => v !== undefined && Object.keys(v).length > 0).length;
    if (given > 1) {
      ctx.addIssue({ code: 'custom', path: ['images'], message: 'give at most one of images ({container: image}) or templatePatch; with neither, each member releases the template it holds' });
    }
  }),
  approve: z.strictObject({
    commandId,
    wave: z.string().regex(DNS1123_LABEL, { error: 'must be a wave name (a DNS-1123 label)' }).optional(),
    releaseId: z.string().regex(/^f\d{1,12}$/, { error: 'must be a fleet release id such as f3 (see `rollouts fleet get`)' }).optional(),
  }),
  pause: bare,
  resume: bare,
  abort: bare,
  skip: z.strictObject({ commandId, cluster: z.string().regex(CLUSTER_NAME, { error: RULES.cluster[1] }) }),
} as const;

export interface ParsedFleetCommand {
  body: FleetCommandBody;
  commandId: string | undefined;
}

/** Validates the JSON body of a fleet verb (400 on any issue) and turns it into the command to record. */
export function parseFleetCommand(verb: FleetVerb, json: unknown): ParsedFleetCommand {
  switch (verb) {
    case 'release': {
      const b = parseBody(schemas.release, json);
      const change = b.images !== undefined && Object.keys(b.images).length > 0 ? { type: 'images' as const, images: b.images }
        : b.templatePatch !== undefined && Object.keys(b.templatePatch).length > 0 ? { type: 'templatePatch' as const, patch: b.templatePatch } : null;
      return { commandId: b.commandId, body: { type: 'release', ...(change ? { change } : {}) } };
    }
    case 'approve': {
      const b = parseBody(schemas.approve, json);
      return { commandId: b.commandId, body: { type: 'approve', ...(b.wave === undefined ? {} : { wave: b.wave }), ...(b.releaseId === undefined ? {} : { releaseId: b.releaseId }) } };
    }
    case 'skip': {
      const b = parseBody(schemas.skip, json);
      return { commandId: b.commandId, body: { type: 'skip', cluster: b.cluster } };
    }
    default: {
      const b = parseBody(schemas[verb], json);
      return { commandId: b.commandId, body: { type: verb } };
    }
  }
}
