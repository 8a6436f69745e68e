// The Domains page: a plan without custom domains is told so; a domain added (CSRF) shows its TXT record, is checked,
// refused twice, and deleted.
import { expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { loopbackProbe } from '../helpers/custom-domain-suite.js';
import { PortalClient } from '../helpers/portal-client.js';

// Port 1 on loopback refuses at once: "Check now" gets an answer without any network.
const t = useTestApp({ domainProbe: loopbackProbe(1) });

it(
  'adds a domain with the TXT record that proves it, checks it, refuses it twice and deletes it; a free plan is ' +
    'told it has none',
  async () => {
    const client = new PortalClient(t.app);
    await client.signInLocally(`domains-${Date.now()}@example.com`);
    const accountId = ((await client.json('GET', '/portal/api/session')).json() as { account: { id: string } }).account
      .id;
    const free = await client.get('/portal/domains');
    expect(free.statusCode).toBe(200);
    expect(free.body).toContain('Custom domains are not included in your plan');
    expect((await client.postForm('/portal/domains', { hostname: 'go.portal.example' })).statusCode).toBe(403);

    await t.stores.accounts.setPlan(accountId, 'pro');
    const csrf = () => client.csrfFrom('/portal/domains');
    const added = await client.postForm('/portal/domains', { hostname: 'Go.Portal.example', _csrf: await csrf() });
    expect([added.statusCode, added.headers.location]).toEqual([303, '/portal/domains']);
    const page = await client.get('/portal/domains');
    const id = /data-domain-id="(dom_[A-Za-z0-9_-]{20})"/.exec(page.body)?.[1];
    expect(id).toBeDefined();
    expect(page.body).toMatch(
      /<code class="txt-name">_qrm-challenge\.go\.portal\.example<\/code> TXT <code class="txt-value">[A-Za-z0-9_-]{32}<\/code>/,
    );
    expect(page.body).toContain('pending');

    const again = await client.postForm('/portal/domains', { hostname: 'go.portal.example', _csrf: await csrf() });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('go.portal.example is already registered');

    const checked = await client.postForm(`/portal/domains/${id}/verify`, { _csrf: await csrf() });
    expect([checked.statusCode, checked.headers.location]).toEqual([303, '/portal/domains?notice=pending']);
    const afterCheck = (await client.get('/portal/domains')).body;
    expect(afterCheck).toContain('Last check ');
    expect(afterCheck).toContain('no TXT record _qrm-challenge.go.portal.example');

    const deleted = await client.postForm(`/portal/domains/${id}/delete`, { _csrf: await csrf() });
    expect([deleted.statusCode, deleted.headers.location]).toEqual([303, '/portal/domains?notice=deleted']);
    expect((await client.get('/portal/domains')).body).toContain('No custom domains yet.');
  },
);
