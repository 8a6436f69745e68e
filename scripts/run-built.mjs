// Runs a compiled entry (npm start, npm run worker, npm run qrm): checks dist/ first and rebuilds only when it is
// missing or older than the sources.
// package.json starts it with `exec`: Debian's sh would otherwise stay between npm and this process and not pass
// SIGTERM/SIGINT on.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildDist, buildFreshness, tscPath } from './dist.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node scripts/run-built.mjs dist/<entry>.js [args...]\n');
  process.exit(2);
}

const freshness = buildFreshness(root, entry);
if (freshness.state !== 'fresh') {
  // stderr only: `KEY=$(npm run --silent qrm -- keys create ...)` must still capture the secret alone.
  const why =
    freshness.state === 'missing' ? `${entry} is missing (never built)` : `${entry} is older than ${freshness.changed}`;
  const tsc = tscPath(root);
  if (!tsc) {
    process.stderr.write(
      `qr-manager: ${why}, and TypeScript is not installed to rebuild it: run \`npm ci\`, then \`npm run build\`\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`qr-manager: ${why}; building once (npm run build)...\n`);
  if (!buildDist(root, tsc) || !existsSync(join(root, entry))) {
    process.stderr.write('qr-manager: the build failed (see above); fix it, then run `npm run build`\n');
    process.exit(1);
  }
}

// The entry reads its own arguments from process.argv.slice(2): put it where this script and its argument were.
process.argv.splice(1, 2, join(root, entry));
await import(pathToFileURL(join(root, entry)).href);
