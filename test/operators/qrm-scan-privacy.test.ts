// `qrm accounts privacy`: the operator reads and sets an account's scanPrivacy from another process, and the running
// server's next scan follows it (the embedded cache drops what it held when another process commits).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { codesApi, scan, USER_AGENTS } from '../helpers/codes.js';
import { runCli } from '../helpers/processes.js';

let t: TestApp;
let dataDir: string;
const env = () => ({ QR_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const email = 'privacy@example.com';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-scan-privacy-'));
  t = await createTestApp({ dataDir, env: { TRUST_PROXY: '1' } });
  await runCli(['accounts', 'create', '--email', email, '--plan', 'pro'], env());
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('qrm accounts privacy', () => {
  it(
    'shows country by default, sets none for the server to ' + 'follow at its next scan, and refuses an unknown level',
    async () => {
      const shown = await runCli(['accounts', 'privacy', '--email', email, '--json'], env());
      expect(JSON.parse(shown.stdout)).toMatchObject({ scanPrivacy: 'country' });
      const key = (await runCli(['keys', 'create', '--email', email], env())).stdout.trim();
      const code = await codesApi(t.app, key).created('https://example.com/operator');
      const viaProxy = { ip: '10.0.0.2', userAgent: USER_AGENTS.ios, headers: { 'x-forwarded-for': '8.8.8.8' } };
      await scan(t.app, code.slug, viaProxy);

      const set = await runCli(['accounts', 'privacy', '--email', email, '--scan-privacy', 'none'], env());
      expect(set.stdout).toContain('scanPrivacy=none');
      await scan(t.app, code.slug, { ...viaProxy, headers: { 'x-forwarded-for': '200.147.67.142' } });
      await t.stores.scans.flush();
      const stats = (await codesApi(t.app, key).stats(code.id)).json() as {
        totals: { scans: number; uniqueScanners: number };
        countries: object;
      };
      expect(stats.totals).toMatchObject({ scans: 2, uniqueScanners: 1 });
      expect(stats.countries).toEqual({ US: 1 });

      const refused = runCli(['accounts', 'privacy', '--email', email, '--scan-privacy', 'all'], env());
      await expect(refused).rejects.toMatchObject({
        stderr: expect.stringContaining('--scan-privacy must be one of country, city, none'),
      });
    },
  );
});
