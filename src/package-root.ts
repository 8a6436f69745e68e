// Where the installed package's own files are (package.json, src/ templates and scripts, docs/, dist/): found from the
// running module, so source under tsx, tsc's dist/ and the bundle in dist/bundle/ all read the same files.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest directory above this module holding qr-manager's package.json. */
export function packageRoot(): string {
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
 * A worker thread's entry, workers/<name>: the TypeScript (run with tsx's loader) under tsx, else tsc's
 * dist/workers/<name>.js (which the bundle's threads run too).
 */
export function workerThreadEntry(name: string): { filename: string; execArgv: string[] } {
  return runningFromSource()
    ? { filename: packagePath(`workers/${name}.ts`), execArgv: ['--import', 'tsx'] }
    : { filename: packagePath(`dist/workers/${name}.js`), execArgv: [] };
}
