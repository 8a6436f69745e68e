// The portal's Settings page: an owner sets the account's scan privacy (CSRF-checked, audited), the API reads it back,
// and a viewer sees it but cannot change it.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();
const API = '/api/v1/QRManager';

describe('the Settings page', () => {
  it('lets the owner choose None, which the API then reads, with an audit entry', async () => {
    const caller = await t.newCaller('pro');
    const account = (await t.stores.accounts.findById(caller.accountId))!;
    const owner = new PortalClient(t.app);
    await owner.signInLocally(account.email);
    const page = await owner.get('/portal/settings');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/value="country" checked/);

    const saved = await owner.postForm('/portal/settings', { scanPrivacy: 'none', _csrf: csrfTokenIn(page.body)! });
    expect([saved.statusCode, saved.headers.location]).toEqual([303, '/portal/settings?notice=saved']);
    expect((await owner.get('/portal/settings?notice=saved')).body).toMatch(/value="none" checked/);
    const read = await t.app.inject({ method: 'GET', url: `${API}/settings`, headers: { 'x-api-key': caller.key } });
    expect(read.json()).toEqual({ scanPrivacy: 'none' });
    const entries = await t.stores.auditLog.list(caller.accountId, { limit: 5, action: 'settings.changed' });
    expect(entries.items.map((entry) => [entry.actor.type, entry.changes])).toEqual([
      ['member', { scanPrivacy: 'none' }],
    ]);

    const unknown = await owner.postForm('/portal/settings', {
      scanPrivacy: 'everything',
      _csrf: csrfTokenIn(page.body)!,
    });
    expect(unknown.statusCode).toBe(400);
    const forged = await owner.postForm('/portal/settings', { scanPrivacy: 'city' });
    expect(forged.statusCode).toBe(403);
    expect((await t.stores.accounts.findById(caller.accountId))!.scanPrivacy).toBe('none');
  });
});
