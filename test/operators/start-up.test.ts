// Start-up as operators run it (`npm start` runs scripts/run-built.mjs on dist/): a plans file with a mistake, or
// accounts on a plan it lacks, stop it with exit 1 and a message naming them.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { buildFreshness } from '../../scripts/dist.mjs';
import { freePort, runCli, startServer } from '../helpers/processes.js';
import { teamPlan } from '../helpers/plan-files.js';
import { useTempDir } from '../helpers/temp-dir.js';

const exec = promisify(execFile);

interface Exit {
  code: number;
  stderr: string;
}

/** `npm start` without npm: the launcher checks dist/ (building it once if stale), then runs the compiled server. */
async function startCompiled(env: Record<string, string>): Promise<Exit> {
  const port = await freePort();
  try {
    const { stderr } = await exec(process.execPath, ['scripts/run-built.mjs', 'dist/bundle/api.js'], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
      timeout: 120_000,
    });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, stderr: failed.stderr ?? '' };
  }
}

const team = teamPlan({ formats: ['png'] });

describe('start-up on a port already in use', () => {
  it('stops with exit 1 and one line naming the port and PORT, no stack', async () => {
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    const dir = await mkdtemp(join(tmpdir(), 'qrm-start-port-'));
    try {
      const exit = await startCompiled({ PORT: String(port), QR_DATA_DIR: dir });
      expect(exit.code).toBe(1);
      const failure = exit.stderr.split('\n').filter((line) => line.includes('failed to start'));
      expect(failure).toEqual([
        `qr-manager: failed to start: port ${port} on 127.0.0.1 is already in use: stop what holds it, or ` +
          `start on another with PORT (e.g. PORT=3001)`,
      ]);
      expect(exit.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('start-up with a plans file', () => {
  const dir = useTempDir('qrm-start-');

  it('stops with exit 1 and names the file, the plan and the field of a mistake', async () => {
    const plansFile = join(dir.path, 'typo.json');
    await writeFile(plansFile, JSON.stringify({ plans: [{ ...team, formats: ['png', 'jpeg'] }], default: 'team' }));
    const exit = await startCompiled({ QR_PLANS_FILE: plansFile, QR_DATA_DIR: join(dir.path, 'data-typo') });
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain(`QR_PLANS_FILE ${plansFile}`);
    expect(exit.stderr).toContain('plans[0] (plan "team").formats[1]: unknown format "jpeg"');
  }, 150_000);

  it('stops with exit 1 when accounts are on a plan the file no longer defines, naming the plan', async () => {
    const dataDir = join(dir.path, 'data-orphans');
    await mkdir(dataDir, { recursive: true });
    const stores = createSqliteStores(dataDir);
    await stores.accounts.create({
      email: 'pro@example.com',
      plan: 'pro',
      identity: { provider: 'local', subject: 'pro@example.com' },
      createdAt: new Date(),
    });
    await stores.close();
    const plansFile = join(dir.path, 'no-pro.json');
    await writeFile(plansFile, JSON.stringify({ plans: [team], default: 'team' }));
    const exit = await startCompiled({ QR_PLANS_FILE: plansFile, QR_DATA_DIR: dataDir });
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain(`QR_PLANS_FILE ${plansFile}: plans: does not define plan "pro" (1 account)`);

    // qrm still runs (it is how the operator moves those accounts), says what is wrong, and lists the file's plans.
    const listed = await runCli(['plans', '--json'], { QR_PLANS_FILE: plansFile, QR_DATA_DIR: dataDir });
    expect(listed.stderr).toContain('warning: QR_PLANS_FILE');
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: 'team', requestsPerMonth: null, accounts: 0, isDefault: true }),
    ]);
    const moved = await runCli(['accounts', 'plan', '--email', 'pro@example.com', '--plan', 'team'], {
      QR_PLANS_FILE: plansFile,
      QR_DATA_DIR: dataDir,
    });
    expect(moved.stdout).toContain('plan=team');
    const server = await startServer({ QR_PLANS_FILE: plansFile, QR_DATA_DIR: dataDir }, 60_000);
    expect(await server.stop()).toBe(0);
  }, 150_000);
});

describe('the build check before a compiled entry runs', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'qrm-fresh-'));
    await mkdir(join(root, 'src', 'deep'), { recursive: true });
    await writeFile(join(root, 'src', 'deep', 'a.ts'), '');
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it('says missing before a build, fresh after it, and stale naming the source edited since', async () => {
    expect(buildFreshness(root, 'dist/src/entries/api.js')).toEqual({ state: 'missing' });
    await mkdir(join(root, 'dist', 'src', 'entries'), { recursive: true });
    await writeFile(join(root, 'dist', 'src', 'entries', 'api.js'), '');
    const past = new Date(Date.now() - 60_000);
    await utimes(join(root, 'src', 'deep', 'a.ts'), past, past);
    expect(buildFreshness(root, 'dist/src/entries/api.js')).toEqual({ state: 'fresh' });
    const future = new Date(Date.now() + 60_000);
    await utimes(join(root, 'src', 'deep', 'a.ts'), future, future);
    expect(buildFreshness(root, 'dist/src/entries/api.js')).toEqual({
      state: 'stale',
      changed: join('src', 'deep', 'a.ts'),
    });
  });

  it('says stale naming the bundle script edited since the build', async () => {
    await mkdir(join(root, 'scripts'), { recursive: true });
    await mkdir(join(root, 'dist', 'bundle'), { recursive: true });
    await writeFile(join(root, 'dist', 'bundle', 'api.js'), '');
    const past = new Date(Date.now() - 60_000);
    await utimes(join(root, 'src', 'deep', 'a.ts'), past, past);
    await writeFile(join(root, 'scripts', 'code-cache.mjs'), '');
    await utimes(join(root, 'scripts', 'code-cache.mjs'), past, past);
    expect(buildFreshness(root, 'dist/bundle/api.js')).toEqual({ state: 'fresh' });
    const future = new Date(Date.now() + 60_000);
    await utimes(join(root, 'scripts', 'code-cache.mjs'), future, future);
    expect(buildFreshness(root, 'dist/bundle/api.js')).toEqual({ state: 'stale', changed: 'scripts/code-cache.mjs' });
  });
});
