// The layer rules of CONTRIBUTING.md, checked on every import in src/ and workers/: a file that imports what its layer
// must not fails here, naming both.
import { describe, expect, it } from 'vitest';
import { relative } from 'node:path';
import { ROOT, SOURCE_IMPORTS as IMPORTS, sourceFiles, WORKERS, type Import } from './source-imports.js';

const isBuiltin = (target: string) => target.startsWith('node:');
const within =
  (...folders: string[]) =>
  (target: string) =>
    folders.some((folder) => target.startsWith(`src/${folder}/`));
/** What src/render draws and reads images with. */
const IMAGING_LIBRARIES = ['qr', 'sharp', 'zxing-wasm', '@undecaf/zbar-wasm', 'jsqr', 'pdfkit'];
const DRIVERS = [
  'ioredis',
  'mongoose',
  'mongodb',
  'better-sqlite3',
  'bullmq',
  'piscina',
  'fastify',
  'sharp',
  'stripe',
  'undici',
];

/** Each layer: which files it covers, and what one of its imports may be. */
const RULES: Array<{
  layer: string;
  files: (file: string) => boolean;
  allowed: (imp: Import) => boolean;
  why: string;
}> = [
  {
    layer: 'src/domain',
    files: within('domain'),
    allowed: ({ target }) => within('domain')(target) || isBuiltin(target) || target === 'zod',
    why: 'pure rules and ports: nothing outside src/domain but zod and Node built-ins',
  },
  {
    layer: 'src/services',
    files: within('services'),
    allowed: ({ target }) => within('domain', 'services')(target) || isBuiltin(target),
    why: 'use cases written against ports: src/domain and other services only, never a driver',
  },
  {
    layer: 'src/render',
    files: within('render'),
    allowed: ({ file, target }) =>
      within('domain', 'render')(target) ||
      IMAGING_LIBRARIES.includes(target) ||
      target === 'node:zlib' ||
      // Scan verdicts are cached under a SHA-256 of the image's (and its design class's) inputs (fixed-size keys):
      // hashing, not I/O.
      (file === 'src/render/branded/shared-verdict.ts' && target === 'node:crypto') ||
      // The scan check reads zxing-wasm's binary from the installed package, so it never fetches it: the one file read.
      (file === 'src/render/branded/scan-check.ts' && ['node:fs', 'node:module'].includes(target)) ||
      // pdfkit loads on the first PDF, synchronously through Node's module cache, not at start-up.
      (file === 'src/render/vector/pdf-writer.ts' && target === 'node:module') ||
      // The imaging libraries load on first use, synchronously through Node's module cache, not at start-up.
      (file === 'src/render/imaging-libraries.ts' && target === 'node:module') ||
      // Caches live in a DesignCaches object its caller owns (one per render thread), never in module state.
      (file === 'src/render/branded/design-caches.ts' && target === 'lru-cache'),
    why:
      'draws images: src/domain, the imaging libraries and zlib, caches only in DesignCaches (owned by its ' +
      'caller); never a store, a service, an adapter, HTTP or other I/O',
  },
  {
    layer: 'src/adapters',
    files: within('adapters'),
    allowed: ({ file, target, typeOnly }) =>
      within('domain', 'adapters', 'render')(target) ||
      // The shape of the settings it takes (a Pick of Config), never loadConfig: the composition root passes them in.
      (target === 'src/config.ts' && typeOnly) ||
      // The queue runners run use cases (a batch chunk, a background job): only they may reach into services.
      (within('services')(target) && file.startsWith('src/adapters/queue/')) ||
      // Where the package's own files are (Lua scripts, thread entries): a path, the same from source and built.
      target === 'src/package-root.ts' ||
      !target.startsWith('src/'),
    why:
      'one port implementation per file: src/domain, drivers and src/render; never loadConfig, composition, HTTP ' +
      'or (outside the queue runners) services',
  },
  {
    layer: 'src/http',
    files: within('http'),
    allowed: ({ target, typeOnly }) =>
      within('domain', 'services', 'http')(target) ||
      (target === 'src/adapters/contract.ts' && typeOnly) ||
      (target === 'src/config.ts' && typeOnly) ||
      // Where the package's own files are (templates, the portal's assets, docs/): a path, not an adapter.
      target === 'src/package-root.ts' ||
      (!target.startsWith('src/') && !DRIVERS.filter((d) => d !== 'fastify').includes(target)),
    why:
      'routes and plugins: src/domain, src/services and the Adapters contract (as types); never an adapter, a ' +
      'driver or a composition root',
  },
];

describe('layering', () => {
  it('reads imports of every kind (the check below would pass vacuously otherwise)', () => {
    const targets = IMPORTS.map((imp) => `${imp.file} -> ${imp.target}`);
    expect(targets).toContain('src/app.ts -> src/composition/api.ts');
    expect(
      IMPORTS.some(
        (imp) => imp.file.startsWith('src/composition/') && imp.target === 'src/adapters/mongo/mongo-stores.ts',
      ),
    ).toBe(true); // a dynamic import()
    expect(IMPORTS.some((imp) => imp.typeOnly && imp.target === 'src/adapters/contract.ts')).toBe(true);
    expect(targets).toContain('workers/jobs.ts -> workers/jobs-process.ts');
  });

  it('workers/ holds the jobs and render processes and the thread entries, and nothing in src/ imports it', () => {
    expect(
      sourceFiles(WORKERS)
        .map((path) => relative(ROOT, path))
        .sort(),
    ).toEqual(
      ['decode-thread.ts', 'jobs-process.ts', 'jobs.ts', 'render-process.ts', 'render-thread.ts', 'render.ts'].map(
        (name) => `workers/${name}`,
      ),
    );
    const broken = IMPORTS.filter((imp) => imp.file.startsWith('src/') && imp.target.startsWith('workers/')).map(
      (imp) => `${imp.file} imports ${imp.target}`,
    );
    expect(broken).toEqual([]);
  });

  for (const rule of RULES) {
    it(`${rule.layer}: ${rule.why}`, () => {
      const broken = IMPORTS.filter((imp) => rule.files(imp.file) && !rule.allowed(imp)).map(
        (imp) => `${imp.file} imports ${imp.target}`,
      );
      expect(broken).toEqual([]);
    });
  }

  it('the core never imports a driver (ioredis, mongoose, better-sqlite3, bullmq, piscina, …)', () => {
    const broken = IMPORTS.filter((imp) => within('domain', 'services')(imp.file) && DRIVERS.includes(imp.target));
    expect(broken).toEqual([]);
  });

  it(
    'only the composition roots, the entries, workers/ and buildApp import a concrete adapter from outside ' +
      'src/adapters',
    () => {
      const broken = IMPORTS.filter(
        (imp) =>
          imp.target.startsWith('src/adapters/') &&
          imp.target !== 'src/adapters/contract.ts' &&
          !imp.file.startsWith('src/adapters/') &&
          !within('composition', 'entries')(imp.file) &&
          !imp.file.startsWith('workers/'),
      ).map((imp) => `${imp.file} imports ${imp.target}`);
      expect(broken).toEqual([]);
    },
  );
});
