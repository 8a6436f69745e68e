// Types of scripts/bundle.mjs for the TypeScript that imports it (tests).
export const EXTERNAL_PACKAGES: string[];
export function bundleApi(root: string): void;
