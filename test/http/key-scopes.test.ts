// Scoped, expiring API keys: each API route needs one scope (declared once, in its OpenAPI security), a key outside it
// gets 403 insufficient_scope, a key past its expiry 401 expired_api_key; keys from before scopes keep every one.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFile, migrate, MIGRATIONS } from '../../src/adapters/sqlite/database.js';
import { apiKeyHint, generateApiKey, hashApiKey } from '../../src/domain/api-key.js';
import { KEY_SCOPES } from '../../src/domain/key-scope.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { CODES_URL } from '../helpers/codes.js';
import { runCli } from '../helpers/processes.js';

let t: TestApp;
let dataDir: string;
const env = () => ({ QR_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-key-scopes-'));
  t = await createTestApp({ dataDir });
  await runCli(['accounts', 'create', '--email', 'scoped@example.com', '--plan', 'pro'], env());
});
afterAll(async () => {
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

type Operation = { security?: Array<Record<string, string[]>>; responses: Record<string, { description: string }> };

describe('scoped API keys', () => {
  it('names exactly one known scope on every API operation, and documents the 401 and 403 a key can get', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
      );
    expect(operations.length).toBeGreaterThan(30);
    for (const { name, operation } of operations) {
      expect(operation.security, name).toHaveLength(1);
      const scopes = operation.security![0]!.apiKey;
      expect(scopes, name).toHaveLength(1);
      expect(KEY_SCOPES, name).toContain(scopes![0]);
      expect(operation.responses['403']?.description, name).toContain('`insufficient_scope`');
      expect(operation.responses['401']?.description, name).toContain('`expired_api_key`');
    }
  });

  it(
    'lets a key made with `qrm keys create --scopes codes:read` list codes but refuses it generate and the keys ' +
      'list',
    async () => {
      const made = await runCli(
        ['keys', 'create', '--email', 'scoped@example.com', '--name', 'reader', '--scopes', 'codes:read'],
        env(),
      );
      const key = made.stdout.trim();
      const listed = await t.app.inject({ method: 'GET', url: CODES_URL, headers: { 'x-api-key': key } });
      expect(listed.statusCode).toBe(200);
      const refused = await generate(t.app, key, { content: 'hello', type: 'text', outputFormat: 'png' });
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.json()).toMatchObject({ code: 'insufficient_scope', requiredScope: 'generate' });
      const admin = await t.app.inject({ method: 'GET', url: '/api/v1/QRManager/keys', headers: { 'x-api-key': key } });
      expect(admin.statusCode).toBe(403);
      expect(admin.json()).toMatchObject({ code: 'insufficient_scope', requiredScope: 'admin' });

      const shown = (await runCli(['keys', 'list', '--email', 'scoped@example.com'], env())).stdout;
      expect(shown).toMatch(/active\s+scopes codes:read\s+expires never/);
    },
    60_000,
  );

  it('refuses an unknown scope at the command line, naming the known ones', async () => {
    await expect(
      runCli(['keys', 'create', '--email', 'scoped@example.com', '--scopes', 'codes:read,everything'], env()),
    ).rejects.toThrow(/unknown: everything/);
  }, 30_000);

  it(
    'answers a key made with `--expires` a few seconds ' +
      'ahead until then, and 401 expired_api_key from then ' +
      'on',
    async () => {
      const expires = new Date(Date.now() + 5_000);
      const made = await runCli(
        ['keys', 'create', '--email', 'scoped@example.com', '--name', 'short', '--expires', expires.toISOString()],
        env(),
      );
      const key = made.stdout.trim();
      t.clock.now = new Date(expires.getTime() - 1_000);
      expect((await generate(t.app, key, { content: 'before', type: 'text', outputFormat: 'png' })).statusCode).toBe(
        200,
      );
      t.clock.now = expires;
      const after = await generate(t.app, key, { content: 'after', type: 'text', outputFormat: 'png' });
      expect(after.statusCode).toBe(401);
      expect(after.json()).toMatchObject({ code: 'expired_api_key', expiredAt: expires.toISOString() });
      const shown = (await runCli(['keys', 'list', '--email', 'scoped@example.com', '--json'], env())).stdout;
      expect(
        (JSON.parse(shown) as Array<{ name: string; expiresAt: string }>).find((k) => k.name === 'short')?.expiresAt,
      ).toBe(expires.toISOString());
      t.clock.now = new Date();
    },
    60_000,
  );

  it('lets an admin key list the keys by their maker and revoke one', async () => {
    const admin = (
      await runCli(['keys', 'create', '--email', 'scoped@example.com', '--name', 'admin', '--scopes', 'admin'], env())
    ).stdout.trim();
    const page = await t.app.inject({
      method: 'GET',
      url: '/api/v1/QRManager/keys?createdBy=qrm',
      headers: { 'x-api-key': admin },
    });
    expect(page.statusCode).toBe(200);
    const items = page.json().items as Array<{
      id: string;
      name: string;
      scopes: string[];
      createdBy: { type: string };
    }>;
    expect(items.find((k) => k.name === 'reader')).toMatchObject({
      scopes: ['codes:read'],
      createdBy: { type: 'operator', id: 'qrm', label: 'qrm' },
    });
    expect(JSON.stringify(page.json())).not.toContain(admin);
    const reader = items.find((k) => k.name === 'reader')!;
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/QRManager/keys/${reader.id}`,
      headers: { 'x-api-key': admin },
    });
    expect(revoked.json()).toMatchObject({ id: reader.id, status: 'revoked' });
    const byNobody = await t.app.inject({
      method: 'GET',
      url: '/api/v1/QRManager/keys?createdBy=mem_nobody',
      headers: { 'x-api-key': admin },
    });
    expect(byNobody.json().items).toEqual([]);
  }, 60_000);
});

describe('keys made before scopes existed', () => {
  let oldDir: string;
  afterAll(async () => {
    if (oldDir) await rm(oldDir, { recursive: true, force: true });
  });

  it('keep every scope and no expiry once the database is upgraded in place', async () => {
    oldDir = await mkdtemp(join(tmpdir(), 'qrm-key-upgrade-'));
    const db = new Database(databaseFile(oldDir));
    migrate(
      db,
      MIGRATIONS.findIndex((step) => step.includes('ADD COLUMN scopes')),
    ); // the schema of the release before scopes
    const secret = generateApiKey();
    db.prepare(
      'INSERT INTO accounts (id, email, plan, identity_provider, identity_subject, created_at) VALUES ' +
        "('acc_old', 'old@example.com', 'pro', 'local', 'old@example.com', 0)",
    ).run();
    db.prepare(
      "INSERT INTO api_keys (id, account_id, name, hash, hint, created_at) VALUES ('key_old', 'acc_old', " +
        "'old', ?, ?, 0)",
    ).run(hashApiKey(secret, undefined), apiKeyHint(secret));
    db.close();
    const upgraded = await createTestApp({ dataDir: oldDir });
    try {
      const keys = await upgraded.app.inject({
        method: 'GET',
        url: '/api/v1/QRManager/keys',
        headers: { 'x-api-key': secret },
      });
      expect(keys.statusCode).toBe(200);
      expect(keys.json().items).toEqual([
        expect.objectContaining({ id: 'key_old', scopes: [...KEY_SCOPES], expiresAt: null, createdBy: null }),
      ]);
      expect(
        (await generate(upgraded.app, secret, { content: 'old key', type: 'text', outputFormat: 'png' })).statusCode,
      ).toBe(200);
    } finally {
      await upgraded.close();
    }
  }, 60_000);
});
