// The embedded SQLite store running out of space or turning read-only: clear 503s, no corruption, and nothing lost that
// was acknowledged.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStoresOn } from '../../src/adapters/sqlite/sqlite-stores.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { runClockFast } from '../helpers/fast-clock.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'qrm-sqlite-faults-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// Long distinct payloads: each new code needs fresh pages in qr_codes, so a capped file fills within a few requests.
const bigCode = (tag: string, i: number) => ({
  content: `${tag} ${i} ${'x'.repeat(1_500)}`,
  type: 'text',
  outputFormat: 'png',
  size: 512,
  errorCorrection: 'L',
});

type Answer = Awaited<ReturnType<typeof generate>>;

function expectUnavailable(res: Answer) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ code: 'unavailable', status: 503 });
  expect(res.headers['retry-after']).toBe('1');
  expect(res.body).not.toMatch(/SQLITE|\bat .+:\d+:\d+/);
}

/**
 * Opens the file on its own connection: PRAGMA integrity_check, and what the store holds for the account this month.
 */
function inspect(file: string, accountId: string, at: Date) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    const period = periodOf(at);
    const usage = db
      .prepare('SELECT requests, qrs FROM usage WHERE account_id = ? AND period = ?')
      .get(accountId, period);
    const payloads = db
      .prepare('SELECT payload, generations FROM qr_codes WHERE account_id = ? AND period = ?')
      .all(accountId, period) as Array<{
      payload: string;
      generations: number;
    }>;
    const activeKeys = (
      db.prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL').get(accountId) as {
        n: number;
      }
    ).n;
    return {
      integrity,
      usage,
      payloads: payloads.map((p) => p.payload).sort(),
      generations: payloads.reduce((sum, p) => sum + p.generations, 0),
      activeKeys,
    };
  } finally {
    db.close();
  }
}

describe('a full disk under the embedded store', () => {
  let t: TestApp;
  let db: Database.Database;
  let file: string;

  beforeAll(async () => {
    const dir = await mkdtemp(join(root, 'full-'));
    file = join(dir, 'qr-manager.db');
    db = openDatabase(dir);
    t = await createTestApp({ stores: sqliteStoresOn(db), env: { IMAGE_CACHE_MB: '0' } });
    runClockFast(t.clock);
  });
  afterAll(async () => t?.close());

  it(
    'answers 503 unavailable with Retry-After once the file cannot grow, keeps it intact, and serves again when ' +
      'space returns',
    async () => {
      const caller = await t.newCaller('business');
      const acknowledged: string[] = [];
      const send = async (body: ReturnType<typeof bigCode>) => {
        const res = await generate(t.app, caller.key, body);
        expect([200, 503]).toContain(res.statusCode);
        if (res.statusCode === 200) acknowledged.push(body.content);
        return res;
      };
      for (let i = 0; i < 3; i++) expect((await send(bigCode('before', i))).statusCode).toBe(200);

      // The disk is full: SQLite may not add a single page to the file (SQLITE_FULL), on the service's live connection.
      const unlimited = db.pragma('max_page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      let refused: Answer | undefined;
      for (let i = 0; i < 50 && !refused; i++) {
        const res = await send(bigCode('full', i));
        if (res.statusCode === 503) refused = res;
      }
      expect(refused, 'a new code must eventually need a page the file cannot get').toBeDefined();
      expectUnavailable(refused!);
      for (let i = 0; i < 3; i++) expectUnavailable(await send(bigCode('still full', i)));
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

      // Space again: no restart, the next codes are stored.
      db.pragma(`max_page_count = ${unlimited}`);
      for (let i = 0; i < 3; i++) expect((await send(bigCode('after', i))).statusCode).toBe(200);

      // The refused requests left no trace: the counts and records are exactly the acknowledged ones.
      const stored = inspect(file, caller.accountId, t.clock.now);
      expect(stored.integrity).toBe('ok');
      expect(stored.usage).toEqual({ requests: acknowledged.length, qrs: acknowledged.length });
      expect(stored.payloads).toEqual([...acknowledged].sort());
      expect(stored.generations).toBe(acknowledged.length);
      expect(stored.activeKeys).toBe(1);
    },
    30_000,
  );
});

describe('a read-only embedded store', () => {
  it(
    'refuses generations with 503 unavailable and Retry-After, still authenticates, and leaves the file intact ' +
      'and complete',
    async () => {
      const dir = await mkdtemp(join(root, 'readonly-'));
      const file = join(dir, 'qr-manager.db');
      // First life, writable: three codes acknowledged.
      const writable = await createTestApp({ dataDir: dir });
      runClockFast(writable.clock);
      const caller = await writable.newCaller('business');
      const acknowledged: string[] = [];
      for (let i = 0; i < 3; i++) {
        const body = bigCode('writable', i);
        expect((await generate(writable.app, caller.key, body)).statusCode).toBe(200);
        acknowledged.push(body.content);
      }
      await writable.close();

      // The file system turned read-only: the service runs on a read-only connection to the same file.
      const t = await createTestApp({
        stores: sqliteStoresOn(new Database(file, { readonly: true, fileMustExist: true })),
        env: { IMAGE_CACHE_MB: '0' },
      });
      runClockFast(t.clock);
      try {
        for (let i = 0; i < 3; i++) expectUnavailable(await generate(t.app, caller.key, bigCode('read-only', i)));
        // A code already counted needs a write too.
        expectUnavailable(await generate(t.app, caller.key, bigCode('writable', 0)));
        // Authentication is a read: an unknown key is still told apart from an outage.
        expect((await generate(t.app, generateApiKey(), bigCode('read-only', 9))).json()).toMatchObject({
          code: 'invalid_api_key',
        });
      } finally {
        await t.close();
      }

      const stored = inspect(file, caller.accountId, writable.clock.now);
      expect(stored.integrity).toBe('ok');
      expect(stored.usage).toEqual({ requests: 3, qrs: 3 });
      expect(stored.payloads).toEqual([...acknowledged].sort());
      expect(stored.activeKeys).toBe(1);
    },
    30_000,
  );
});
