// The API entry as one bundle (dist/bundle/api.js, what `npm start` runs): our modules and the pure-JavaScript packages
// its start needs in a few files, so Node's loader resolves, reads and links a handful of files instead of ~900.
// Run after tsc (`npm run build`): `qrm` and the jobs and render processes run tsc's dist/.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/** Native addons. */
const NATIVE = ['better-sqlite3', 'sharp'];
/** Packages that read files from their own directory: worker scripts, Lua, wasm, templates, fonts, static assets. */
const OWN_FILES = ['piscina', 'pino', 'bullmq', '@fastify/view', '@fastify/swagger-ui', '@fastify/static', 'pdfkit'];
/** Packages only a configured or first-used feature loads: they load from node_modules then, as under tsc. */
const ON_FIRST_USE = ['ioredis', 'mongoose', 'mongodb', 'stripe', 'jose', 'undici', 'yazl', 'yaml', 'markdown-it'];
/** The image readers (wasm) and the rest of the API reference, also first use only. */
const READERS_AND_REFERENCE = ['zxing-wasm', '@undecaf/zbar-wasm', 'jsqr', '@fastify/swagger'];

/** Left to Node's loader: what the bundle must not or need not hold. */
export const EXTERNAL_PACKAGES = [...NATIVE, ...OWN_FILES, ...ON_FIRST_USE, ...READERS_AND_REFERENCE];

/** Builds dist/bundle/ from the API entry and its thread entries; throws (esbuild prints why) when it cannot. */
export function bundleApi(root) {
  const outdir = join(root, 'dist', 'bundle');
  rmSync(outdir, { recursive: true, force: true });
  buildSync({
    absWorkingDir: root,
    // The render and decode threads' entries too: a thread the bundled API starts loads a few files as well.
    entryPoints: {
      api: 'src/entries/api.ts',
      'render-thread': 'workers/render-thread.ts',
      'decode-thread': 'workers/decode-thread.ts',
    },
    outdir,
    bundle: true,
    // Dynamic import() stays lazy: each feature loaded on first use is a chunk of its own.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    external: EXTERNAL_PACKAGES,
    // The CommonJS packages inside call require() for Node's built-ins: give the ES module one.
    banner: {
      js: [
        "import { createRequire as bundleRequire } from 'node:module';",
        'const require = bundleRequire(import.meta.url);',
      ].join('\n'),
    },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bundleApi(join(dirname(fileURLToPath(import.meta.url)), '..'));
}
