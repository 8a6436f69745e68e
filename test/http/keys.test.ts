// API keys: shown once, stored hashed, at most five active per account (atomically), revocation immediate.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, isWellFormedApiKey } from '../../src/domain/api-key.js';
import { ApiError } from '../../src/domain/errors.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey, listKeys, revokeKey } from '../../src/services/api-keys.js';
import { createTestApp, generate, useTestApp } from '../helpers/app.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qrm-keys-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
// On disk, so the test can read the stored rows; built after the directory exists, closed before it is removed.
const t = useTestApp(() => ({ dataDir: dir }));

const deps = () => ({ ...t.stores, keyPepper: undefined, clock: () => new Date() });

describe('API keys', () => {
  it('issues a well-formed secret whose plain text is never stored', async () => {
    const account = await createLocalAccount(deps(), 'stored@example.com', 'free');
    const issued = await issueKey(deps(), account.id, 'ci');
    expect(isWellFormedApiKey(issued.secret)).toBe(true);
    expect(issued.key.hint).toBe(`qrm_live_…${issued.secret.slice(-4)}`);
    const db = new Database(join(dir, 'qr-manager.db'), { readonly: true });
    try {
      const row = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(issued.key.id) as Record<string, unknown>;
      expect(row.hash).toBe(hashApiKey(issued.secret, undefined));
      expect(JSON.stringify(row)).not.toContain(issued.secret.slice(9, 39));
    } finally {
      db.close();
    }
    const listed = await listKeys(deps(), account.id);
    expect(JSON.stringify(listed)).not.toContain(issued.secret);
  });

  it('allows exactly five active keys under concurrent creation, and one more after a revocation', async () => {
    const account = await createLocalAccount(deps(), 'five@example.com', 'free');
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => issueKey(deps(), account.id, `k${i}`)),
    );
    const created = attempts.filter((a) => a.status === 'fulfilled');
    const refused = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(created).toHaveLength(5);
    expect(
      refused.every(
        (r) => r.reason instanceof ApiError && r.reason.code === 'key_limit_reached' && r.reason.status === 409,
      ),
    ).toBe(true);
    const [first] = await listKeys(deps(), account.id);
    await revokeKey(deps(), account.id, first!.id);
    await expect(issueKey(deps(), account.id, 'replacement')).resolves.toBeDefined();
    await expect(issueKey(deps(), account.id, 'one too many')).rejects.toMatchObject({ code: 'key_limit_reached' });
  });

  it("never lets one account revoke or list another account's key", async () => {
    const owner = await createLocalAccount(deps(), 'owner@example.com', 'free');
    const other = await createLocalAccount(deps(), 'other@example.com', 'free');
    const issued = await issueKey(deps(), owner.id);
    await expect(revokeKey(deps(), other.id, issued.key.id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await listKeys(deps(), other.id)).toEqual([]);
    expect(
      (await generate(t.app, issued.secret, { content: 'still works', type: 'text', outputFormat: 'png' })).statusCode,
    ).toBe(200);
  });

  it('records when a key was last used', async () => {
    // A second app on the same database file, so that closing it (which flushes the buffered last-used times) leaves t
    // serving.
    const other = await createTestApp({ dataDir: dir });
    const caller = await other.newCaller('free');
    expect(
      (await generate(other.app, caller.key, { content: 'touch', type: 'text', outputFormat: 'png' })).statusCode,
    ).toBe(200);
    await other.close();
    const [key] = await listKeys(deps(), caller.accountId);
    expect(key!.lastUsedAt).toBeInstanceOf(Date);
  });
});
