// No scan's IP address is stored or logged: the embedded database file and the log lines are searched for the addresses
// that scanned (through a trusted proxy), after plain scans, a bot, an unknown slug and wrong passwords.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { BOT_AGENTS, codesApi, scan, USER_AGENTS } from '../helpers/codes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'qrm-privacy-'));
const t = useTestApp({ dataDir, env: { TRUST_PROXY: '1' } });
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ADDRESSES = ['200.147.67.142', '8.8.8.8', '2001:4860:4860::8888'];

describe('the privacy of scans', () => {
  it('keeps no scanning address in the database file or the log', async () => {
    const { key } = await t.newCaller('pro');
    const api = codesApi(t.app, key);
    const code = await api.created('https://example.com/private');
    const locked = (await api.create({ target: 'https://example.com/locked', password: 'open sesame' })).json() as {
      slug: string;
    };
    for (const address of ADDRESSES) {
      const via = { ip: '10.0.0.2', headers: { 'x-forwarded-for': address } };
      expect((await scan(t.app, code.slug, { ...via, userAgent: USER_AGENTS.android })).statusCode).toBe(302);
      expect((await scan(t.app, code.slug, { ...via, userAgent: BOT_AGENTS.slack })).statusCode).toBe(302);
      expect((await scan(t.app, 'NoSuchSlug', { ...via, userAgent: USER_AGENTS.ios })).statusCode).toBe(404);
      const wrong = await t.app.inject({
        method: 'POST',
        url: `/r/${locked.slug}`,
        remoteAddress: '10.0.0.2',
        headers: {
          'x-forwarded-for': address,
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': USER_AGENTS.ios,
        },
        payload: 'password=guess',
      });
      expect(wrong.statusCode).toBe(401);
    }
    await t.stores.scans.flush();
    const stats = (await api.stats(code.id)).json() as {
      totals: { scans: number; bots: number };
      countries: Record<string, number>;
    };
    expect(stats.totals).toMatchObject({ scans: 3, bots: 3 });
    expect(stats.countries).toEqual({ BR: 1, US: 2 });

    const files = readdirSync(dataDir).filter((name) => name.startsWith('qr-manager.db'));
    expect(files).toContain('qr-manager.db');
    const bytes = Buffer.concat(files.map((name) => readFileSync(join(dataDir, name))));
    const log = t.logs.join('');
    expect(log).toContain('"route":"/r/:slug"');
    for (const address of ADDRESSES) {
      expect(bytes.includes(address), `${address} in the database file`).toBe(false);
      expect(log.includes(address), `${address} in the log`).toBe(false);
    }
  });
});
