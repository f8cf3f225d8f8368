// Bodies of the command verbs (POST /v1/rollouts/{c}/{ns}/{name}/{verb}, and DELETE). Strict: an
// unknown field is an error, so a typo such as "toRevison" is reported instead of silently ignored.
import * as z from 'zod';
import type { CommandBody } from '../rollout/types.ts';
import { imageReferenceProblem } from '../rollout/imageReference.ts';
import { parseBody } from './body.ts';

export const COMMAND_VERBS = ['approve', 'pause', 'resume', 'abort', 'undo', 'retry', 'release'] as const;
export type CommandVerb = (typeof COMMAND_VERBS)[number];

/** Client idempotency key: the same id sent twice is applied once (the second answer says duplicate). */
export const commandId = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(128, { error: 'must be at most 128 characters' })
  .regex(/^[\x21-\x7e]*$/, { error: 'must be printable ASCII without spaces' })
  .optional();

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const startAt = z
  .string()
  .refine((s) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)), { error: 'must be an RFC 3339 timestamp such as 2030-01-01T09:00:00Z' })
  .transform((s) => new Date(s).toISOString());

const image = z.string().superRefine((ref, ctx) => {
  const problem = imageReferenceProblem(ref);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});

const CONTAINER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `{container: image}` of a release: each key a container name, each value an image reference. */
export const imagesSchema = z.record(z.string(), image).superRefine((images, ctx) => {
  // Keys are checked here, not by z.record's key schema, whose failure says only "Invalid key in record".
  for (const container of Object.keys(images)) {
    if (!CONTAINER_NAME.test(container)) ctx.addIssue({ code: 'custom', path: [container], message: 'container name must be a DNS-1123 label (lowercase letters, digits and "-", at most 63)' });
  }
});

const bare = z.strictObject({ commandId });

const schemas = {
  approve: z.strictObject({
    commandId,
    stepIndex: z.number().int().min(0, { error: 'must be >= 0 (0-based step index)' }).optional(),
    releaseId: z.string().regex(/^r\d{1,12}$/, { error: 'must be a release id such as r3 (see `rollouts get`)' }).optional(),
  }),
  pause: bare,
  resume: bare,
  abort: bare,
  retry: bare,
  undo: z.strictObject({
    commandId,
    toRevision: z.number().int().min(1, { error: 'must be a revision number >= 1' }).optional(),
    dryRun: z.boolean({ error: 'must be true or false' }).optional(),
  }),
  release: z
    .strictObject({
      commandId,
      images: imagesSchema.optional(),
      templatePatch: z.record(z.string(), z.unknown()).optional(),
      startAt: startAt.optional(),
    })
    .superRefine((b, ctx) => {
      const given = [b.images, b.templatePatch].filter((v) => v !== undefined && Object.keys(v).length > 0).length;
      if (given !== 1) {
        ctx.addIssue({ code: 'custom', path: ['images'], message: 'exactly one of images ({container: image}) or templatePatch must be given and non-empty' });
      }
    }),
  delete: bare,
} as const;

export interface ParsedCommand {
  body: CommandBody;
  commandId: string | undefined;
  /** undo: say where it would go and how, record nothing. */
  dryRun?: boolean;
}

/** Validates the JSON body of `verb` (400 on any issue) and turns it into the command to record. */
export function parseCommand(verb: CommandVerb | 'delete', json: unknown): ParsedCommand {
  switch (verb) {
    case 'approve': {
      const b = parseBody(schemas.approve, json);
      return { commandId: b.commandId, body: { type: 'approve', ...(b.stepIndex === undefined ? {} : { stepIndex: b.stepIndex }), ...(b.releaseId === undefined ? {} : { releaseId: b.releaseId }) } };
    }
    case 'undo': {
      const b = parseBody(schemas.undo, json);
      return { commandId: b.commandId, body: { type: 'undo', ...(b.toRevision === undefined ? {} : { toRevision: b.toRevision }) }, ...(b.dryRun ? { dryRun: true } : {}) };
    }
    case 'release': {
      const b = parseBody(schemas.release, json);
      const change = b.images !== undefined && Object.keys(b.images).length > 0
        ? { type: 'images' as const, images: b.images }
        : { type: 'templatePatch' as const, patch: b.templatePatch ?? {} };
      return { commandId: b.commandId, body: { type: 'release', change, ...(b.startAt === undefined ? {} : { startAt: b.startAt }) } };
    }
    default: {
      const b = parseBody(schemas[verb], json);
      return { commandId: b.commandId, body: { type: verb } };
    }
  }
}
