// dynalite ships no types; this is the part of its API we use (index.js of dynalite 4).
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    /** How long a new table stays CREATING (default 500 ms). */
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
  }

  /** An http.Server whose close() also closes the LevelDB store. */
  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}
