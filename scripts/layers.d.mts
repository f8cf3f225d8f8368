// Types of scripts/layers.mjs (plain JavaScript: eslint.config.js imports it without a compiler).

export interface Part {
  readonly name: string;
  readonly paths: readonly string[];
  readonly may: readonly string[];
}

export const PARTS: readonly Part[];
export function partOf(repoPath: string): Part | null;
export function arrowProblem(from: string, to: string): string | null;
