// Request bodies: size limit first (before any parsing), then JSON (or YAML for Rollout documents),
// then a zod schema whose issues become {path, reason} pairs naming the field. The YAML parser
// (~115 KB of the API bundle) is imported on the first YAML body, not at cold start: the CLI and
// the dashboard send JSON.
import type { z } from 'zod';
import type { FieldIssue } from '../errors.ts';
import { formatPath, invalidTypeReason } from '../rollout/specIssues.ts';
import { HttpError, badRequest } from './httpError.ts';
import type { ApiRequest } from './types.ts';
import { isRecord } from '../json.ts';

/**
 * A request body read from its stream as UTF-8 text (undefined when empty), or 'too large' as soon
 * as it passes `limit` bytes: the rest is never read (the transports then answer 413 and close).
 */
export async function readBody(stream: AsyncIterable<Buffer>, limit: number): Promise<string | undefined | 'too large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) return 'too large';
    chunks.push(chunk);
  }
  return size === 0 ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** 413 when the body is larger than `maxBytes` (counted in UTF-8 bytes, as it came over the wire). */
export function enforceBodyLimit(body: string | undefined, maxBytes: number): void {
  if (body === undefined) return;
  const size = Buffer.byteLength(body, 'utf8');
  if (size > maxBytes) throw new HttpError(413, `request body is ${size} bytes; the limit is ${maxBytes}`);
}

/** The body as JSON; an absent or blank body is `{}` (verbs without parameters). */
export function jsonBody(req: ApiRequest): unknown {
  if (req.body === undefined || req.body.trim() === '') return {};
  try {
    return JSON.parse(req.body) as unknown;
  } catch (err) {
    throw badRequest([{ path: '(body)', reason: `malformed JSON: ${err instanceof Error ? err.message : String(err)}` }], err);
  }
}

/**
 * The Rollout document of an apply: JSON, `{"yaml": "<text>"}`, or a raw YAML body when the
 * content-type says YAML. Exactly one document.
 */
export async function rolloutDocument(req: ApiRequest): Promise<unknown> {
  if (req.body === undefined || req.body.trim() === '') throw badRequest([{ path: '(body)', reason: 'required: the Rollout document' }]);
  if (/yaml/i.test(req.headers['content-type'] ?? '')) return yamlDocument(req.body, '(body)');
  const body = jsonBody(req);
  if (isRecord(body) && Object.keys(body).length === 1 && 'yaml' in body) {
    if (typeof body.yaml !== 'string') throw badRequest([{ path: 'yaml', reason: 'must be a string holding the Rollout as YAML' }]);
    return yamlDocument(body.yaml, 'yaml');
  }
  return body;
}

async function yamlDocument(text: string, path: string): Promise<unknown> {
  const { parseAllDocuments } = await import('yaml');
  const docs = parseAllDocuments(text);
  const syntax = docs.flatMap((d) => d.errors);
  if (syntax.length > 0) throw badRequest(syntax.map((e) => ({ path, reason: `YAML syntax error: ${e.message.trimEnd()}` })));
  const values = docs.map((d) => d.toJS() as unknown).filter((v) => v !== null && v !== undefined);
  if (values.length !== 1) throw badRequest([{ path, reason: `must hold exactly one YAML document (found ${values.length})` }]);
  return values[0];
}

/** Validates `value` against `schema`; 400 listing every issue otherwise. */
export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw badRequest(zodIssues(result.error));
}

export function zodIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((i): FieldIssue[] => {
    // Unknown fields: one issue per key, at the key's own path.
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => ({ path: formatPath([...i.path, k]), reason: 'unknown field' }));
    const path = i.path.length === 0 ? '(body)' : formatPath(i.path);
    // The same wording as a Rollout's errors: "must be a number, not the string \"1\"".
    if (i.code === 'invalid_type') return [{ path, reason: invalidTypeReason(i) }];
    return [{ path, reason: i.message }];
  });
}

