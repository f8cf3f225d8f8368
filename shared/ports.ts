// The ports: every interface through which the product's services reach the outside world. The
// services (shared/reconcile, shared/watch, shared/api) are written against these; the adapters
// (shared/adapters) implement them; the composition roots (shared/app, shared/local) wire one to
// the other. docs/architecture.md draws the layers.

// ---- Log ----------------------------------------------------------------------------------------

/** Structured lines: Powertools' Logger in the Lambdas (shared/app/observability.ts), printed lines in local mode. */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A log that drops every line. */
export const SILENT_LOG: Log = Object.freeze({ info: () => {}, warn: () => {}, error: () => {} });
