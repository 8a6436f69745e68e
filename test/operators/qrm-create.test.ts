// qrm on the embedded database: run from another directory without QR_DATA_DIR it refuses to start a new, empty
// database unless asked (--create).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const QRM = resolve('src/entries/qrm.ts');
const TSX = resolve('node_modules/tsx/dist/cli.mjs');

function qrm(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { QR_DATA_DIR: _unset, ...env } = process.env;
  return exec(process.execPath, [TSX, QRM, ...args], { cwd, env, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

describe('qrm without QR_DATA_DIR, away from the server', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'qrm-elsewhere-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses to create a database and names where it looked', async () => {
    const refused = await qrm(dir, ['accounts', 'create', '--email', 'ops@example.com']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`no database at ${join(dir, 'data', 'qr-manager.db')}`);
    expect(refused.stderr).toContain('--create');
    expect(existsSync(join(dir, 'data', 'qr-manager.db'))).toBe(false);
  });

  it('creates it when asked with --create, and uses it afterwards without', async () => {
    const created = await qrm(dir, ['accounts', 'create', '--email', 'ops@example.com', '--create']);
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(join(dir, 'data', 'qr-manager.db'))).toBe(true);
    const listed = await qrm(dir, ['usage', '--email', 'ops@example.com']);
    expect(listed.code, listed.stderr).toBe(0);
  });
});
