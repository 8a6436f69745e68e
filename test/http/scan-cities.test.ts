// GEOIP_CITY_DB: a city database gives scans a region and city, for rules by place and the statistics' cities; a
// file that is not one stops start-up naming the variable. The database is written by test/helpers/mmdb-city.ts and
// read by the service's own `maxmind` reader.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGeoLookup } from '../../src/composition/geo.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { useTestApp } from '../helpers/app.js';
import { codesApi, scan, USER_AGENTS } from '../helpers/codes.js';
import { writeCityDatabase } from '../helpers/mmdb-city.js';

const dir = mkdtempSync(join(tmpdir(), 'qrm-cities-'));
const cityDb = join(dir, 'city.mmdb');
writeCityDatabase(cityDb, {
  '200.147.67.0/24': { country: 'BR', region: 'São Paulo', city: 'São Paulo' },
  '200.147.68.0/24': { country: 'BR', region: 'Rio de Janeiro', city: 'Niterói' },
  '8.8.8.0/24': { country: 'US', region: 'California', city: 'Mountain View' },
});
const t = useTestApp({ env: { GEOIP_CITY_DB: cityDb } });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Sets the account's scanPrivacy through the API. */
async function setScanPrivacy(key: string, scanPrivacy: string): Promise<void> {
  const res = await t.app.inject({
    method: 'PATCH',
    url: '/api/v1/QRManager/settings',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ scanPrivacy }),
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('a city database (GEOIP_CITY_DB)', () => {
  it(
    'routes scans by region and city and, for an account ' + 'with scanPrivacy city, counts them under their cities',
    async () => {
      const { key } = await t.newCaller('pro');
      await setScanPrivacy(key, 'city');
      const api = codesApi(t.app, key);
      const created = await api.create({
        target: 'https://example.com/',
        rules: [
          { if: { city: ['são paulo'] }, target: 'https://example.com/sampa' },
          { if: { region: ['RIO DE JANEIRO'] }, target: 'https://example.com/rio' },
        ],
      });
      expect(created.statusCode, created.body).toBe(201);
      const code = created.json() as { id: string; slug: string };
      const visits: Array<[string, string]> = [
        ['200.147.67.142', 'https://example.com/sampa'],
        ['200.147.67.143', 'https://example.com/sampa'],
        ['200.147.68.10', 'https://example.com/rio'],
        ['8.8.8.8', 'https://example.com/'],
        ['1.1.1.1', 'https://example.com/'],
      ];
      for (const [ip, target] of visits) {
        const answer = await scan(t.app, code.slug, { ip, userAgent: USER_AGENTS.ios });
        expect([answer.statusCode, answer.headers.location], ip).toEqual([302, target]);
      }
      await t.stores.scans.flush();
      const stats = (await api.stats(code.id)).json() as { countries: Record<string, number>; cities?: unknown };
      expect(stats.cities).toEqual([
        { country: 'BR', region: 'São Paulo', city: 'São Paulo', scans: 2 },
        { country: 'US', region: 'California', city: 'Mountain View', scans: 1 },
        { country: 'BR', region: 'Rio de Janeiro', city: 'Niterói', scans: 1 },
      ]);
      // An address the city database does not know is placed by the shipped country database alone.
      expect(stats.countries).toMatchObject({ BR: 3, US: 1 });
      expect(Object.values(stats.countries).reduce((a, b) => a + b, 0)).toBe(5);
    },
  );

  it('keeps no region or city for an account left at scanPrivacy country, while region rules still route', async () => {
    const { key } = await t.newCaller('pro');
    const api = codesApi(t.app, key);
    const created = await api.create({
      target: 'https://example.com/',
      rules: [{ if: { region: ['São Paulo'] }, target: 'https://example.com/sp' }],
    });
    const code = created.json() as { id: string; slug: string };
    for (const ip of ['200.147.67.142', '8.8.8.8']) await scan(t.app, code.slug, { ip, userAgent: USER_AGENTS.ios });
    const routed = await scan(t.app, code.slug, { ip: '200.147.67.143', userAgent: USER_AGENTS.ios });
    expect(routed.headers.location).toBe('https://example.com/sp');
    await t.stores.scans.flush();
    const stats = (await api.stats(code.id)).json() as { countries: Record<string, number>; cities?: unknown[] };
    expect(stats.cities ?? []).toEqual([]);
    expect(stats.countries).toEqual({ BR: 2, US: 1 });
  });

  it('stops start-up with a ConfigError naming GEOIP_CITY_DB for a missing file or not a database', async () => {
    const notADatabase = join(dir, 'not-a-database.mmdb');
    writeFileSync(notADatabase, 'just text');
    for (const file of [join(dir, 'missing.mmdb'), notADatabase]) {
      const start = () => createGeoLookup(loadConfig({ GEOIP_CITY_DB: file }));
      await expect(start()).rejects.toThrow(ConfigError);
      await expect(start()).rejects.toThrow(`GEOIP_CITY_DB ${file}: not a readable MaxMind DB (.mmdb) file`);
    }
  });
});
