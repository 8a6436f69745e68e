// The audit log: state changes are appended with their actor, address and user agent; admin keys read it as JSON or
// CSV;
// it never holds a secret; entries go when their plan's retention ends (the test drives the sweep).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeChanges } from '../../src/domain/audit.js';
import { BACKGROUND_JOBS, type BackgroundJobDeps } from '../../src/services/background-jobs.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CODES_URL } from '../helpers/codes.js';
import { runCli } from '../helpers/processes.js';

let t: TestApp;
let dataDir: string;
const env = () => ({ QR_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const AUDIT_URL = '/api/v1/QRManager/audit-log';
let admin: string;
let operatorKey: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-audit-'));
  t = await createTestApp({ dataDir });
  await runCli(['accounts', 'create', '--email', 'audited@example.com', '--plan', 'pro'], env());
  admin = (
    await runCli(['keys', 'create', '--email', 'audited@example.com', '--name', 'admin', '--scopes', 'admin'], env())
  ).stdout.trim();
  operatorKey = (
    await runCli(['keys', 'create', '--email', 'audited@example.com', '--name', 'ops'], env())
  ).stdout.trim();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

type Entry = {
  action: string;
  actor: { type: string; id: string; label: string };
  target: { type: string; id: string };
  ip: string | null;
  userAgent: string | null;
};

async function entries(query = ''): Promise<Entry[]> {
  const res = await t.app.inject({ method: 'GET', url: `${AUDIT_URL}${query}`, headers: { 'x-api-key': admin } });
  expect(res.statusCode).toBe(200);
  return res.json().items as Entry[];
}

describe('the audit log', () => {
  it('lists api_key.created with the operator as its actor, and holds no key secret', async () => {
    const created = await entries('?action=api_key.created');
    expect(created).toHaveLength(2);
    expect(created[0]).toMatchObject({
      actor: { type: 'operator', id: 'qrm', label: 'qrm' },
      target: { type: 'api_key' },
    });
    const csv = (await t.app.inject({ method: 'GET', url: `${AUDIT_URL}.csv`, headers: { 'x-api-key': admin } })).body;
    for (const secret of [admin, operatorKey]) {
      expect(JSON.stringify(created)).not.toContain(secret.slice(9, 39));
      expect(csv).not.toContain(secret.slice(9, 39));
    }
  });

  it('records who changed a code through the API: the key by its hint, its address and user agent', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: CODES_URL,
      headers: { 'x-api-key': operatorKey, 'user-agent': 'campaign-bot/1.0' },
      payload: { target: 'https://example.com/spring' },
      remoteAddress: '198.51.100.23',
    });
    expect(res.statusCode).toBe(201);
    const [entry] = await entries('?action=code.created');
    expect(entry).toMatchObject({
      actor: { type: 'api_key', label: `qrm_live_…${operatorKey.slice(-4)}` },
      target: { type: 'code', id: res.json().id },
      ip: '198.51.100.23',
      userAgent: 'campaign-bot/1.0',
    });
    const byKey = await entries(`?actor=${entry!.actor.id}`);
    expect(byKey.every((e) => e.actor.id === entry!.actor.id)).toBe(true);
  });

  it(
    'never holds a signing key or webhook secret, and a ' + 'summary drops secret fields and secret-looking values',
    async () => {
      const made = await t.app.inject({
        method: 'POST',
        url: '/api/v1/QRManager/signing-keys',
        headers: { 'x-api-key': operatorKey },
        payload: { name: 'cdn' },
      });
      expect(made.statusCode).toBe(201);
      const [entry] = await entries('?action=signing_key.created');
      expect(entry).toMatchObject({ target: { type: 'signing_key', id: made.json().id } });
      const webhook = await t.app.inject({
        method: 'POST',
        url: '/api/v1/QRManager/webhooks',
        headers: { 'x-api-key': operatorKey },
        payload: { url: 'https://hooks.example.com/scans', events: ['code.scanned'] },
      });
      expect(webhook.statusCode).toBe(201);
      expect(webhook.json().secret).toEqual(expect.any(String));
      const all = JSON.stringify(await entries('?limit=100'));
      expect(all).toContain('webhook.created');
      expect(all).not.toContain(made.json().secret);
      expect(all).not.toContain(webhook.json().secret);
      expect(
        safeChanges({
          secret: 'x',
          webhookSecret: 'whsec_abcdefgh',
          name: `leak ${operatorKey}`,
          note: 'whsec_abcdefghij',
          hint: 'ok',
        }),
      ).toEqual({
        name: '[redacted]',
        note: '[redacted]',
        hint: 'ok',
      });
    },
  );

  it('streams the CSV with formula-looking cells neutralised', async () => {
    await t.app.inject({
      method: 'POST',
      url: CODES_URL,
      headers: { 'x-api-key': operatorKey, 'user-agent': '=HYPERLINK("https://evil.example")' },
      payload: { target: 'https://example.com/csv' },
    });
    const res = await t.app.inject({
      method: 'GET',
      url: `${AUDIT_URL}.csv?action=code.created`,
      headers: { 'x-api-key': admin },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('at,action,actor_type,actor_id,actor_label,target_type,target_id,ip,user_agent,changes');
    expect(lines).toHaveLength(3);
    expect(res.body).toContain(`"'=HYPERLINK(""https://evil.example"")"`);
  });

  it(
    'is refused to a key without the admin scope, as ' + 'JSON and as CSV; no route edits or deletes an entry',
    async () => {
      const reader = (
        await runCli(
          ['keys', 'create', '--email', 'audited@example.com', '--name', 'reader', '--scopes', 'codes:read'],
          env(),
        )
      ).stdout.trim();
      for (const url of [AUDIT_URL, `${AUDIT_URL}.csv`]) {
        const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': reader } });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ code: 'insufficient_scope', requiredScope: 'admin' });
      }
      for (const method of ['DELETE', 'PATCH', 'PUT', 'POST'] as const) {
        expect((await t.app.inject({ method, url: AUDIT_URL, headers: { 'x-api-key': admin } })).statusCode).toBe(405);
      }
    },
    30_000,
  );

  it('drops entries once their plan’s auditLogDays have passed, when the retention job runs', async () => {
    const job = BACKGROUND_JOBS.find((j) => j.name === 'audit-log-retention')!;
    const before = (await entries('?limit=100')).length;
    expect(before).toBeGreaterThan(0);
    const run = (at: Date) => job.run({ ...t.stores, clock: () => at } as unknown as BackgroundJobDeps);
    await run(new Date(Date.now() + 89 * 86_400_000)); // pro: 90 days
    expect((await entries('?limit=100')).length).toBe(before);
    await run(new Date(Date.now() + 91 * 86_400_000));
    expect(await entries('?limit=100')).toEqual([]);
  });
});
