// npm's `prepare` hook (runs on `npm ci` and `npm install` in a checkout): build dist/ once, so `npm start` starts in
// about a second, and the TypeScript SDK's dist/, so its README's `npm install --install-links …` works.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildClient, buildDist, tscPath } from './dist.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = tscPath(root);
// The Docker build installs dependencies before it copies the sources in (and builds explicitly afterwards): nothing to
// build yet.
if (!tsc || !existsSync(join(root, 'tsconfig.json')) || !existsSync(join(root, 'src'))) {
  process.stderr.write(
    'qr-manager: prepare: no sources or no TypeScript here; not building (run `npm run build` when they are)\n',
  );
  process.exit(0);
}
process.exit(buildDist(root, tsc) && buildClient(root, tsc) ? 0 : 1);
