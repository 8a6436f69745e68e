// Start-up: the embedded default loads no driver or library of a feature it does not use (Redis, BullMQ, MongoDB,
// Stripe, OIDC, print, webhooks, the API reference, image reading and branded designs); each loads when its feature
// is configured or first used.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);

/**
 * Packages of features the embedded default does not start with (the zip writer serves only finished batches; Swagger
 * and its UI build the API reference on the first /openapi.json or /docs; the imaging libraries load on the first
 * design, logo or upload; markdown-it renders the guides on the first /portal/docs/ request; cron-parser and luxon a
 * moment after start, when the in-process scheduler arms its cron patterns).
 */
const NOT_AT_START = [
  'bullmq',
  'ioredis',
  'mongoose',
  'mongodb',
  'stripe',
  'jose',
  'pdfkit',
  'fontkit',
  'undici',
  'yazl',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@fastify/static',
  'yaml',
  'sharp',
  'jsqr',
  'zxing-wasm',
  '@undecaf/zbar-wasm',
  'markdown-it',
  'cron-parser',
  'luxon',
];

describe('the embedded default at start-up', () => {
  it('loads no package of a feature it does not use yet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qrm-startup-'));
    try {
      const packagesFile = join(dir, 'packages.txt');
      const env = { ...process.env, QRM_PACKAGES_FILE: packagesFile };
      await exec(process.execPath, ['--import', 'tsx', 'test/fixtures/start-embedded.ts', join(dir, 'data')], {
        env,
        timeout: 60_000,
      });
      const loaded = new Set((await readFile(packagesFile, 'utf8')).trim().split('\n'));
      expect(loaded.has('fastify') && loaded.has('better-sqlite3'), 'the hook records what the app loads').toBe(true);
      expect(NOT_AT_START.filter((name) => loaded.has(name))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
