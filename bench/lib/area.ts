// What every benchmark area module exports, and what the orchestrator hands it.

export interface BenchContext {
  log(line: string): void;
  /** Results of the areas already run in this invocation (or, for those not run, of the last results file). */
  results: Record<string, unknown>;
  /** The command line after `npm run bench --` (an area's own options, e.g. bench/lib/peersOptions.ts). */
  args: readonly string[];
}

export interface TableRow {
  area: string;
  metric: string;
  value: string;
  /** Where the figure comes from: a server, our meter, a model, a script. */
  source: string;
}

export interface Area<R = unknown> {
  name: string;
  title: string;
  run(ctx: BenchContext): Promise<R>;
  /** Rows for the printed table, from this area's result. */
  rows(result: R): TableRow[];
}
