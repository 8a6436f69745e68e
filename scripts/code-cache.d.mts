// Types of scripts/code-cache.mjs for the TypeScript that imports it (tests).
export const CACHE_SUFFIX: string;
export function runWithCodeCache(file: string): void;
