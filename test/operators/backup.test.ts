// qrm backup under load and qrm restore: the copy passes integrity_check and holds every account, key and count
// acknowledged before it began.
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { periodOf } from '../../src/domain/period.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';
import { runCli, startServer, type RunningServer } from '../helpers/processes.js';
import { GENERATE_URL } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

const ACCOUNTS = 4;
const MAX_REQUESTS = 4_000; // the load loop's bound, whatever happens
const BEFORE_BACKUP = 60; // successful requests acknowledged before the backup starts

interface Caller {
  accountId: string;
  keyId: string;
  key: string;
  acknowledged: number;
}

async function makeCallers(dataDir: string, count: number, tag: string): Promise<Caller[]> {
  // A second connection on the live file, as qrm makes: committed when each call returns.
  const stores = createSqliteStores(dataDir);
  const deps = { ...stores, keyPepper: undefined, clock: () => new Date() };
  try {
    const callers: Caller[] = [];
    for (let i = 0; i < count; i++) {
      const account = await createLocalAccount(deps, `backup-${tag}-${i}@example.com`, 'business');
      const issued = await issueKey(deps, account.id, 'load');
      callers.push({ accountId: account.id, keyId: issued.key.id, key: issued.secret, acknowledged: 0 });
    }
    return callers;
  } finally {
    await stores.close();
  }
}

describe('qrm backup while the server serves, and qrm restore', () => {
  let dir: string;
  let dataDir: string;
  let server: RunningServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'qrm-backup-'));
    dataDir = join(dir, 'data');
    await makeCallers(dataDir, 0, 'init'); // creates the database file
    server = await startServer({ QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, 60_000);
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies a consistent database under load that restores with everything acknowledged before it began', async () => {
    const callers = await makeCallers(dataDir, ACCOUNTS, 'load');
    let sent = 0;
    let stop = false;
    const load = async (caller: Caller, worker: number) => {
      while (!stop && sent < MAX_REQUESTS) {
        sent++;
        const body = JSON.stringify({
          content: `backup ${worker} ${sent % 7}`,
          type: 'text',
          outputFormat: 'png',
          size: 64,
        });
        const response = await fetch(`${server.baseUrl}${GENERATE_URL}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': caller.key },
          body,
        });
        await response.arrayBuffer();
        if (response.status === 200) caller.acknowledged++;
      }
    };
    const running = Promise.all(callers.flatMap((caller, i) => [load(caller, i), load(caller, i + ACCOUNTS)]));
    const acknowledged = () => callers.reduce((n, c) => n + c.acknowledged, 0);
    await waitFor(
      `${BEFORE_BACKUP} acknowledged generations before the backup`,
      () => acknowledged() >= BEFORE_BACKUP,
      {
        timeoutMs: 30_000,
        intervalMs: 50,
      },
    );

    // Everything acknowledged up to here must be in the copy; the load keeps going while it is taken.
    const late = await makeCallers(dataDir, 1, 'late');
    const before = new Map(callers.map((c) => [c.accountId, c.acknowledged]));
    const backupFile = join(dir, 'copy.db');
    const backup = await runCli(['backup', '--to', backupFile, '--json'], { QR_DATA_DIR: dataDir });
    const duringBackup = acknowledged() - [...before.values()].reduce((a, b) => a + b, 0);
    stop = true;
    await running;
    expect(duringBackup).toBeGreaterThan(0); // the server kept serving (and writing) while the copy was taken
    expect(JSON.parse(backup.stdout)).toMatchObject({ file: backupFile, accounts: ACCOUNTS + 1 });

    const copy = new Database(backupFile, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    copy.close();

    // Restored into an empty data directory (as on a new machine), then read through the stores.
    const restoredDir = join(dir, 'restored');
    const restore = await runCli(['restore', '--from', backupFile], { QR_DATA_DIR: restoredDir });
    expect(restore.stdout).toContain(`(${ACCOUNTS + 1} accounts)`);
    const restored = createSqliteStores(restoredDir);
    try {
      const period = periodOf(new Date());
      for (const caller of [...callers, ...late]) {
        expect(await restored.accounts.findById(caller.accountId)).toBeDefined();
        expect((await restored.keys.list(caller.accountId)).map((k) => k.id)).toEqual([caller.keyId]);
        const usage = await restored.meter.usage(caller.accountId, period);
        expect(usage.requests).toBeGreaterThanOrEqual(before.get(caller.accountId) ?? 0);
        expect(usage.requests).toBeLessThanOrEqual(caller.acknowledged);
      }
    } finally {
      await restored.close();
    }
  }, 180_000);

  it('refuses to restore over the database while the server holds it, and changes nothing', async () => {
    const backupFile = join(dir, 'refused.db');
    await runCli(['backup', '--to', backupFile], { QR_DATA_DIR: dataDir });
    const attempt = runCli(['restore', '--from', backupFile], { QR_DATA_DIR: dataDir });
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('is open in another process'),
    });
    expect(readdirSync(dataDir).some((name) => name.includes('before-restore'))).toBe(false);
  }, 120_000);

  it('restores over the database once the server has stopped, keeping the one it replaced', async () => {
    const backupFile = join(dir, 'offline.db');
    await runCli(['backup', '--to', backupFile], { QR_DATA_DIR: dataDir });
    expect(await server.stop()).toBe(0);
    const restore = await runCli(['restore', '--from', backupFile, '--json'], { QR_DATA_DIR: dataDir });
    const result = JSON.parse(restore.stdout) as { previous: string };
    expect(existsSync(result.previous)).toBe(true);
    const db = new Database(join(dataDir, 'qr-manager.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  }, 120_000);
});
