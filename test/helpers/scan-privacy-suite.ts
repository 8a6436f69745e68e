// Privacy of scans in either mode: the account's scanPrivacy setting (API) and a scanner's DNT / Sec-GPC, each keeping
// the scan's count but no place and no unique scanner.
import { describe, expect, it } from 'vitest';
import { issueKey } from '../../src/services/api-keys.js';
import { codesApi, scan, USER_AGENTS } from './codes.js';
import { settledStats, type ScanSuiteContext } from './scan-stats.js';

export type ScanPrivacyContext = ScanSuiteContext;

const SETTINGS_URL = '/api/v1/QRManager/settings';

/** A scan through our one trusted proxy, which names the client in X-Forwarded-For. */
const viaProxy = (forwardedFor: string, headers: Record<string, string> = {}) => ({
  ip: '10.0.0.2',
  userAgent: USER_AGENTS.android,
  headers: { 'x-forwarded-for': forwardedFor, ...headers },
});

export function scanPrivacySuite(mode: string, context: () => ScanPrivacyContext): void {
  describe(`scan privacy (${mode})`, () => {
    const settings = (key: string, body?: unknown) =>
      context().t.app.inject({
        method: body === undefined ? 'GET' : 'PATCH',
        url: SETTINGS_URL,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
    const statsOf = (key: string, id: string) => settledStats(context(), key, id);

    it('counts a scan sending DNT: 1 or Sec-GPC: 1, without its country or a unique scanner', async () => {
      const { t } = context();
      const { key } = await t.newCaller('pro');
      const code = await codesApi(t.app, key).created('https://example.com/quiet');
      const signals: Array<Record<string, string>> = [{ dnt: '1' }, { 'sec-gpc': '1' }, { dnt: '1', 'sec-gpc': '1' }];
      for (const headers of signals) {
        const answer = await scan(t.app, code.slug, viaProxy('200.147.67.142', headers));
        expect([answer.statusCode, answer.headers.location]).toEqual([302, 'https://example.com/quiet']);
      }
      const quiet = await statsOf(key, code.id);
      expect(quiet.totals).toEqual({ scans: 3, uniqueScanners: 0, bots: 0 });
      expect(quiet.countries).toEqual({});
      expect(quiet.devices).toMatchObject({ android: 3 });

      // The same person without the signal is placed and counted as a unique scanner; DNT: 0 is no signal.
      await scan(t.app, code.slug, viaProxy('200.147.67.142', { dnt: '0' }));
      const placed = await statsOf(key, code.id);
      expect(placed.totals).toEqual({ scans: 4, uniqueScanners: 1, bots: 0 });
      expect(placed.countries).toEqual({ BR: 1 });
    });

    it('still routes a DNT scan by its country: the place is used for the answer, only not kept', async () => {
      const { t } = context();
      const { key } = await t.newCaller('pro');
      const created = await codesApi(t.app, key).create({
        target: 'https://example.com/en',
        rules: [{ if: { country: ['BR'] }, target: 'https://example.com/pt' }],
      });
      const code = created.json() as { id: string; slug: string };
      const answer = await scan(t.app, code.slug, viaProxy('200.147.67.142', { 'sec-gpc': '1' }));
      expect(answer.headers.location).toBe('https://example.com/pt');
      expect((await statsOf(key, code.id)).countries).toEqual({});
    });

    it(
      'keeps scanPrivacy at country by default; set to ' + 'none, scans count without place or unique scanners',
      async () => {
        const { t } = context();
        const { key, accountId } = await t.newCaller('pro');
        const read = await settings(key);
        expect([read.statusCode, read.json()]).toEqual([200, { scanPrivacy: 'country' }]);
        const code = await codesApi(t.app, key).created('https://example.com/private');
        await scan(t.app, code.slug, viaProxy('8.8.8.8'));

        const changed = await settings(key, { scanPrivacy: 'none' });
        expect([changed.statusCode, changed.json()]).toEqual([200, { scanPrivacy: 'none' }]);
        expect((await settings(key)).json()).toEqual({ scanPrivacy: 'none' });
        for (const address of ['8.8.8.8', '200.147.67.142'])
          expect((await scan(t.app, code.slug, viaProxy(address))).statusCode).toBe(302);
        const stats = await statsOf(key, code.id);
        // The scan before the change keeps what it was counted with; the two after it add counts only.
        expect(stats.totals).toEqual({ scans: 3, uniqueScanners: 1, bots: 0 });
        expect(stats.countries).toEqual({ US: 1 });

        const entries = await t.stores.auditLog.list(accountId, { limit: 10, action: 'settings.changed' });
        expect(entries.items.map((entry) => entry.changes)).toEqual([{ scanPrivacy: 'none' }]);

        // Back to country: places and uniques are counted again from the next scan.
        expect((await settings(key, { scanPrivacy: 'country' })).statusCode).toBe(200);
        await scan(t.app, code.slug, viaProxy('200.147.67.142'));
        const again = await statsOf(key, code.id);
        expect(again.countries).toEqual({ US: 1, BR: 1 });
        expect(again.totals.uniqueScanners).toBe(2);
      },
    );

    it(
      'refuses an unknown level or field with ' + 'invalid_request naming it, and a key without the ' + 'admin scope',
      async () => {
        const { t } = context();
        const { key, accountId } = await t.newCaller('pro');
        for (const body of [{ scanPrivacy: 'everything' }, { scanPrivacy: 'none', retention: 3 }]) {
          const refused = await settings(key, body);
          expect(refused.statusCode).toBe(400);
          expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(refused.json()).toMatchObject({ code: 'invalid_request' });
        }
        expect((await settings(key)).json()).toEqual({ scanPrivacy: 'country' });
        const deps = { ...t.stores, keyPepper: t.config.keyPepper, clock: () => t.clock.now };
        const narrow = await issueKey(deps, accountId, 'codes only', { scopes: ['codes:read', 'codes:write'] });
        const denied = await settings(narrow.secret, { scanPrivacy: 'none' });
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toMatchObject({ code: 'insufficient_scope', requiredScope: 'admin' });
      },
    );
  });
}
