// Where the installed package's own files are (package.json, src/ templates and scripts, docs/, dist/): found from the
// running module, so source under tsx, tsc's dist/ and the bundle in dist/bundle/ all read the same files.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest directory above this module holding qr-manager's package.json: found once, it does not move. */
export const packageRoot = (() => {
  let root: string | undefined;
  return (): string => (root ??= findPackageRoot());
})();

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    if (packageOf(dir)?.name === 'qr-manager') return dir;
    dir = dirname(dir);
  }
  throw new Error('package.json of qr-manager not found above the service code');
}

/** `path` (segments joined with /) inside the package: e.g. packagePath('src/http/portal/views'). */
export function packagePath(path: string): string {
  return join(packageRoot(), path);
}

/** Whether this process runs the TypeScript sources (tests, dev under tsx) rather than built JavaScript. */
export function runningFromSource(): boolean {
  return fileURLToPath(import.meta.url).endsWith('.ts');
}

/** The package.json in `dir`, when there is one. */
export function packageOf(dir: string): { name?: string; version?: string } | undefined {
  const file = join(dir, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }) : undefined;
}

/**
 * A worker thread's entry, workers/<name>: the TypeScript (run with tsx's loader) under tsx, the bundled thread beside
 * the bundled API (dist/bundle/<name>.js), else tsc's dist/workers/<name>.js.
 */
export function workerThreadEntry(name: string): { filename: string; execArgv: string[] } {
  if (runningFromSource()) return { filename: packagePath(`workers/${name}.ts`), execArgv: ['--import', 'tsx'] };
  const bundled = fileURLToPath(import.meta.url).startsWith(packagePath('dist/bundle/'));
  return { filename: packagePath(bundled ? `dist/bundle/${name}.js` : `dist/workers/${name}.js`), execArgv: [] };
}
