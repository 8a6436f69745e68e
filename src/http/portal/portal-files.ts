// Where the portal's templates, static files and the docs it serves live: beside this module in src/ (which tsc does
// not copy to dist/), and the checkout's docs/.
import { fileURLToPath } from 'node:url';

/**
 * Under tsx (tests, dev) this module is src/http/portal/portal-files.ts; built, it is
 * dist/src/http/portal/portal-files.js.
 */
function portalSourceDir(): URL {
  const fromSource = fileURLToPath(import.meta.url).endsWith('.ts');
  return new URL(fromSource ? './' : '../../../../src/http/portal/', import.meta.url);
}

export function portalViewsDir(): string {
  return fileURLToPath(new URL('views/', portalSourceDir()));
}

export function portalAssetsDir(): string {
  return fileURLToPath(new URL('assets/', portalSourceDir()));
}

/** The checkout's docs/ (the guides the portal serves): three levels above src/http/portal/, in source and built. */
export function docsPagesDir(): string {
  return fileURLToPath(new URL('../../../docs/', portalSourceDir()));
}
