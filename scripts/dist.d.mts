// Types of scripts/dist.mjs for the TypeScript that imports it (tests).
export type BuildFreshness = { state: 'missing' } | { state: 'stale'; changed: string } | { state: 'fresh' };
export function buildFreshness(root: string, entry: string): BuildFreshness;
export function tscPath(root: string): string | undefined;
export function buildDist(root: string, tsc: string): boolean;
