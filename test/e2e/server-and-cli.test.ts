// The README path, as a user runs it: start the server, get a key with qrm, generate, decode; then shut down cleanly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { runCli, startServer, type RunningServer } from '../helpers/processes.js';

let dataDir: string;
let server: RunningServer;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-e2e-'));
  env = { QR_DATA_DIR: dataDir };
  server = await startServer(env);
}, 60_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('the server and qrm on the embedded default', () => {
  let key = '';

  it('creates an account and a key; the secret alone is printed on stdout', async () => {
    const account = await runCli(['accounts', 'create', '--email', 'dev@example.com'], env);
    expect(account.stdout).toMatch(/^account acc_\S+ dev@example\.com plan=free\n$/);
    const created = await runCli(['keys', 'create', '--email', 'dev@example.com', '--name', 'laptop'], env);
    key = created.stdout.trim();
    expect(created.stdout).toMatch(/^qrm_live_[0-9A-Za-z]{36}\n$/);
    expect(created.stderr).toContain('shown only this once');
  }, 60_000);

  it('serves a PNG for the key that both decoders read back', async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/QRManager/generate`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'https://example.com', type: 'url', outputFormat: 'png' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(await decodeQr(bytes, 'png')).toEqual(readByAll('https://example.com'));
  });

  it('reports usage, lists and revokes the key through qrm, and the server refuses it at once', async () => {
    const usage = await runCli(['usage', '--email', 'dev@example.com'], env);
    expect(usage.stdout).toContain('requests 1/500  QRs 1/5');
    const listed = await runCli(['keys', 'list', '--email', 'dev@example.com', '--json'], env);
    const [record] = JSON.parse(listed.stdout) as Array<{ id: string; hint: string }>;
    expect(record!.hint).toBe(`qrm_live_…${key.slice(-4)}`);
    expect(listed.stdout).not.toContain(key);
    await runCli(['keys', 'revoke', '--email', 'dev@example.com', '--id', record!.id], env);
    const res = await fetch(`${server.baseUrl}/api/v1/QRManager/generate`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'https://example.com', type: 'url', outputFormat: 'png' }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('invalid_api_key');
  }, 60_000);

  it('changes plans through qrm and explains bad commands', async () => {
    const upgraded = await runCli(['accounts', 'plan', '--email', 'dev@example.com', '--plan', 'pro'], env);
    expect(upgraded.stdout).toContain('plan=pro');
    await expect(
      runCli(['accounts', 'plan', '--email', 'dev@example.com', '--plan', 'gold'], env),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('--plan must be one of free, pro, business'),
    });
  }, 60_000);

  it('exits 0 on SIGTERM, and never logs the API key', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output()).toContain('shutdown complete');
    expect(server.output()).not.toContain(key);
  });
});

describe('configuration errors', () => {
  it('exit 1 with a message naming the variable', async () => {
    await expect(startServer({ PORT: 'eighty' }, 10_000)).rejects.toThrow(/PORT/);
  }, 30_000);
});
