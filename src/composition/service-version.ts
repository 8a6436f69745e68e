// The service's version as package.json states it (webhooks name it in their User-Agent).
import { packageOf, packageRoot } from '../package-root.js';

export function serviceVersion(): string {
  const version = packageOf(packageRoot())?.version;
  if (!version) throw new Error('package.json of qr-manager states no version');
  return version;
}
