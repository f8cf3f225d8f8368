// Reads a YAML (or JSON) file holding one or more documents, for commands that take `-f`.
import { parseAllDocuments } from 'yaml';
import { CliExit, EXIT } from './io.ts';
import type { CliIO } from './io.ts';

export interface FileDocument {
  /** 1-based position in the file, counting only non-empty documents. */
  index: number;
  value: unknown;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Every non-empty document of `path`. Unreadable file, YAML syntax error, or no document → CliExit(1). */
export async function readDocuments(path: string, io: CliIO): Promise<FileDocument[]> {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (err) {
    throw new CliExit(EXIT.failed, `error: cannot read ${path}: ${describe(err)}`, { cause: err });
  }
  const docs = parseAllDocuments(text, { prettyErrors: true });
  const syntax = docs.flatMap((d) => d.errors);
  if (syntax.length > 0) {
    throw new CliExit(EXIT.failed, syntax.map((e) => `error: ${path}: YAML syntax error: ${e.message.trimEnd()}`).join('\n'));
  }
  // A stray `---` (or comments only) makes an empty (null) document: not something to validate.
  const values = docs.map((d) => d.toJS() as unknown).filter((v) => v !== null && v !== undefined);
  if (values.length === 0) throw new CliExit(EXIT.failed, `error: ${path}: no YAML document found`);
  return values.map((value, i) => ({ index: i + 1, value }));
}
