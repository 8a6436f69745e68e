// The API entry as one bundle (dist/bundle/api.cjs, which dist/bundle/api.js, what `npm start` runs, runs through V8's
// code cache): our modules and the pure-JavaScript packages in one file, so Node resolves, reads and links a handful of
// files instead of ~900, and V8 compiles them once per build rather than on every start.
// Run after tsc (`npm run build`): `qrm` and the jobs and render processes run tsc's dist/.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/** Native addons. */
const NATIVE = ['better-sqlite3', 'sharp'];
/**
 * Packages that read files from their own directory: worker scripts, Lua, wasm, templates, fonts, static assets. pino
 * and @fastify/view are bundled: they read their own files only for a log transport (a worker) or a precompiled
 * template folder, neither of which the API uses, and bundled they start through the code cache.
 */
const OWN_FILES = ['piscina', 'bullmq', '@fastify/swagger-ui', '@fastify/static', 'pdfkit'];
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
  const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' };
  // The API as one CommonJS file, so that scripts/code-cache.mjs can run it through V8's code cache (Node 20 compiles
  // ES modules afresh on every start). A dynamic import() of our code becomes a lazy initialiser inside it: a feature
  // is still evaluated on first use, and only its functions' compiled code comes from the cache.
  buildSync({
    ...common,
    entryPoints: { api: 'src/entries/api.ts' },
    outdir,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    // import() of an external package becomes require() too: a script compiled with a code cache has no module loader
    // of its own for import() (Node 20 offers only an experimental one).
    supported: { 'dynamic-import': false },
    sourcemap: true,
    external: EXTERNAL_PACKAGES,
    // A CommonJS file has no import.meta: every module inside reads the bundle's own URL, as it would in one ES module.
    define: { 'import.meta.url': 'bundleUrl' },
    banner: { js: "const bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  // esbuild escapes every character beyond ASCII in code but keeps a few comments as written: one such character makes
  // V8 hold the whole source as two bytes a character, decoded from UTF-8. Each becomes '?' (one per UTF-16 unit, so
  // the source map's columns hold) and the file stays ASCII, read as a plain copy (scripts/code-cache.mjs).
  const api = join(outdir, 'api.cjs');
  writeFileSync(api, readFileSync(api, 'utf8').replace(/[\u0080-\uffff]/g, '?'));
  // dist/bundle/api.js, the entry `npm start`, the Procfile and the image run: the API bundle through the code cache.
  buildSync({ ...common, entryPoints: { api: 'scripts/api-entry.mjs' }, outdir, format: 'esm' });
  // The render and decode threads' entries: a thread the bundled API starts loads a few files as well.
  buildSync({
    ...common,
    entryPoints: { 'render-thread': 'workers/render-thread.ts', 'decode-thread': 'workers/decode-thread.ts' },
    outdir,
    // Dynamic import() stays lazy: each part loaded on first use is a chunk of its own.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    sourcemap: true,
    external: EXTERNAL_PACKAGES,
    // The CommonJS packages inside call require() for Node's built-ins: give the ES module one.
    banner: {
      js: [
        "import { createRequire as bundleRequire } from 'node:module';",
        'const require = bundleRequire(import.meta.url);',
      ].join('\n'),
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bundleApi(join(dirname(fileURLToPath(import.meta.url)), '..'));
}
