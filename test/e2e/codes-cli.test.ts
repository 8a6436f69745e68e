// qrm codes: an operator lists an account's dynamic codes and disables one for abuse; the server answers 410 at once
// and the owner cannot undo it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { codesApi, scan } from '../helpers/codes.js';
import { runCli } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-codes-cli-'));
  t = await createTestApp({ dataDir });
});
afterAll(async () => {
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('qrm codes', () => {
  it('lists the codes of an account, and disables one so that it answers 410 for good', async () => {
    const deps = { ...t.stores, keyPepper: t.config.keyPepper, clock: () => new Date() };
    const account = await createLocalAccount(deps, 'owner@example.com', 'pro');
    const api = codesApi(t.app, (await issueKey(deps, account.id, 'cli')).secret);
    // A millisecond apart at least, so "newest first" has one answer.
    t.clock.now = new Date(Date.now() - 1_000);
    const kept = await api.created('https://example.com/fine', 'Fine');
    t.clock.now = new Date();
    const abused = await api.created('https://phishing.example/login');
    const env = { QR_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    expect((await scan(t.app, abused.slug)).statusCode).toBe(302); // now in the server's slug cache

    const listed = await runCli(['codes', 'list', '--email', 'owner@example.com'], env);
    expect(listed.stdout).toContain(`${kept.slug}  active`);
    expect(listed.stdout).toContain('https://phishing.example/login');
    const json = JSON.parse(
      (await runCli(['codes', 'list', '--email', 'owner@example.com', '--json'], env)).stdout,
    ) as Array<{ id: string }>;
    expect(json.map((c) => c.id)).toEqual([abused.id, kept.id]);

    const disabled = await runCli(['codes', 'disable', '--slug', abused.slug, '--reason', 'phishing report #42'], env);
    expect(disabled.stdout).toContain(`disabled ${abused.slug}`);

    // Another process changed the database: the server's one-second slug cache lets it through within that second.
    await waitFor(
      'the server to answer 410 for the disabled code',
      async () => (await scan(t.app, abused.slug)).statusCode === 410,
      {
        timeoutMs: 2_000,
        intervalMs: 50,
      },
    );
    expect((await scan(t.app, kept.slug)).statusCode).toBe(302);
    const retry = await api.patch(abused.id, { status: 'active' });
    expect(retry.statusCode).toBe(409);
    expect(retry.json()).toMatchObject({ code: 'code_disabled' });
    expect((await api.get(abused.id)).json()).toMatchObject({
      status: 'disabled',
      disabledReason: 'phishing report #42',
    });
    await expect(runCli(['codes', 'disable', '--slug', 'nope', '--reason', 'x'], env)).rejects.toThrow(/slug/);
  }, 60_000);
});
