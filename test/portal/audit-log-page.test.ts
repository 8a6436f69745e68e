// The portal's Audit log page: owners and admins read, filter and page through the entries, and download them as CSV.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();
const API = '/api/v1/QRManager';

async function ownerWithKey() {
  const caller = await t.newCaller('business');
  const account = (await t.stores.accounts.findById(caller.accountId))!;
  const owner = new PortalClient(t.app);
  await owner.signInLocally(account.email);
  const api = (method: string, url: string, body: unknown) =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: { 'x-api-key': caller.key, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  return { ...caller, owner, api };
}

const rows = (html: string) => (html.match(/<tr>\s*<td><time/g) ?? []).length;

describe('Audit log page', () => {
  it('lists the entries newest first, filtered by action and actor, fifty a page, with the filtered CSV', async () => {
    const { owner, api, keyId, key } = await ownerWithKey();
    for (let i = 0; i < 52; i++)
      expect((await api('POST', `${API}/codes`, { target: `https://example.com/${i}` })).statusCode).toBe(201);
    expect(
      (await owner.postForm('/portal/signing', { name: 'cdn', _csrf: await owner.csrfFrom('/portal/signing') }))
        .statusCode,
    ).toBe(201);

    const first = await owner.get('/portal/audit-log');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('aria-current="page">Audit log<');
    expect(rows(first.body)).toBe(50);
    const next = /href="([^"]+)" id="audit-next"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toMatch(/^\/portal\/audit-log\?cursor=/);
    const second = await owner.get(next!);
    expect(rows(second.body)).toBe(3);
    expect(second.body).not.toContain('id="audit-next"');

    const signing = await owner.get('/portal/audit-log?action=signing_key.created');
    expect(rows(signing.body)).toBe(1);
    expect(signing.body).toMatch(/<code>signing_key\.created<\/code>/);
    expect(signing.body).toContain('(member <code>mem_');
    const byKey = await owner.get(`/portal/audit-log?action=&actor=${keyId}`);
    expect(rows(byKey.body)).toBe(50);
    expect(byKey.body).not.toContain('signing_key.created</code>');
    const empty = await owner.get('/portal/audit-log?from=2000-01-01T00:00&to=2000-01-02T00:00');
    expect(empty.body).toContain('No entries match.');

    const csvHref = /href="([^"]+)" id="audit-csv"/.exec(signing.body)![1]!.replaceAll('&amp;', '&');
    expect(csvHref).toBe('/portal/audit-log.csv?action=signing_key.created');
    const csv = await owner.get(csvHref);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('at,action,actor_type,actor_id,actor_label,target_type,target_id,ip,user_agent,changes');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('signing_key.created');
    expect(first.body + csv.body).not.toContain(key.slice(9, 39));
    expect((await owner.get('/portal/audit-log?from=yesterday')).statusCode).toBe(400);
  }, 60_000);

  it('is refused to a viewer (403 insufficient_role naming admin), and the viewer has no Audit log link', async () => {
    const { api } = await ownerWithKey();
    const email = `audit-viewer-${Date.now()}@example.com`;
    const created = await api('POST', `${API}/invitations`, { email, role: 'viewer' });
    const path = new URL(created.json().acceptUrl).pathname;
    const viewer = new PortalClient(t.app);
    await viewer.signInLocally(email);
    const landing = await viewer.get(path);
    expect((await viewer.postForm(`${path}/accept`, { _csrf: csrfTokenIn(landing.body)! })).statusCode).toBe(303);
    const dashboard = await viewer.get('/portal/');
    expect(dashboard.body).not.toContain('/portal/audit-log"');
    for (const url of ['/portal/audit-log', '/portal/audit-log.csv']) {
      const refused = await viewer.get(url);
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('needs the admin role');
    }
  });
});
