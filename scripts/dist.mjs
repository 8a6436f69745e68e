// The compiled build (dist/): is it there and newer than the TypeScript it came from (a stat walk, a few milliseconds),
// and building it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Directories whose .ts files compile into dist/ for the processes (bench/ builds too, but never runs in production).
 */
const SOURCE_DIRS = ['src', 'workers'];

/** The scripts that make the API bundle, and the loader it embeds: an edit to one rebuilds it as a source's would. */
const BUNDLE_SCRIPTS = ['scripts/bundle.mjs', 'scripts/code-cache.mjs', 'scripts/api-entry.mjs'];

function newestSource(root, dir, newest) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(root, path, newest);
    else if (entry.name.endsWith('.ts')) {
      const mtimeMs = statSync(join(root, path)).mtimeMs;
      if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
    }
  }
  return newest;
}

/** A file's modification time; 0 where there is none (an install without the build scripts). */
function mtimeOf(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * `{ state: 'missing' }` when the entry was never built, `{ state: 'stale', changed }` when a source is
 * newer than it (tsc rewrites every output, so one output's time is the build's), else `{ state: 'fresh' }`.
 */
export function buildFreshness(root, entry) {
  let built;
  try {
    built = statSync(join(root, entry)).mtimeMs;
  } catch {
    return { state: 'missing' };
  }
  let newest = SOURCE_DIRS.reduce((found, dir) => newestSource(root, dir, found), { path: '', mtimeMs: 0 });
  for (const path of BUNDLE_SCRIPTS) {
    const mtimeMs = mtimeOf(join(root, path));
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  if (newest.mtimeMs > built) return { state: 'stale', changed: relative(root, join(root, newest.path)) };
  return { state: 'fresh' };
}

/** TypeScript's compiler in this checkout, or undefined where it is not installed (a production install). */
export function tscPath(root) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return existsSync(tsc) ? tsc : undefined;
}

/**
 * `npm run build` without npm: compiles the project with its tsconfig, then bundles the API entry (scripts/bundle.mjs);
 * true when both succeeded.
 */
export function buildDist(root, tsc) {
  const steps = [[tsc, '-p', join(root, 'tsconfig.json')], [join(root, 'scripts', 'bundle.mjs')]];
  const stdio = ['ignore', 'inherit', 'inherit'];
  return steps.every((args) => spawnSync(process.execPath, args, { cwd: root, stdio }).status === 0);
}

/** The TypeScript SDK's `npm run build` without npm: `dist/` (ES modules) and `dist/cjs/` (CommonJS). */
export function buildClient(root, tsc) {
  const client = join(root, 'clients', 'typescript');
  const esm = [tsc, '-p', join(client, 'tsconfig.json')];
  const cjs = [tsc, '-p', join(client, 'tsconfig.cjs.json')];
  const markCjs = [join(client, 'scripts', 'mark-cjs.mjs')];
  const stdio = ['ignore', 'inherit', 'inherit'];
  return [esm, cjs, markCjs].every((args) => spawnSync(process.execPath, args, { cwd: client, stdio }).status === 0);
}
