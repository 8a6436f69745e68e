// The service's version as package.json states it (webhooks name it in their User-Agent).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Reads the nearest package.json above this file: src/ when run from source, dist/src/ when built. */
export function serviceVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'qr-manager' && pkg.version) return pkg.version;
    }
    dir = dirname(dir);
  }
  throw new Error('package.json of qr-manager not found above the service code');
}
