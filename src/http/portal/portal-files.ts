// Where the portal's templates, static files and the docs it serves live: the package's src/http/portal/ (which the
// build does not copy to dist/) and its docs/.
import { packagePath } from '../../package-root.js';

export function portalViewsDir(): string {
  return packagePath('src/http/portal/views/');
}

export function portalAssetsDir(): string {
  return packagePath('src/http/portal/assets/');
}

/** The package's docs/: the guides the portal serves. */
export function docsPagesDir(): string {
  return packagePath('docs/');
}
