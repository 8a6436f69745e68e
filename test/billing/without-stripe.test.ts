// Without Stripe configured nothing changes: no webhook route, no billing routes, and the Plans page names the
// operator.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();

describe('billing without Stripe configured', () => {
  it(
    'has no webhook endpoint and no billing routes, and ' + 'the Plans page keeps upgrades an operator action',
    async () => {
      const webhook = await t.app.inject({
        method: 'POST',
        url: '/webhooks/stripe',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(webhook.statusCode).toBe(404);
      const browser = new PortalClient(t.app);
      await browser.signInLocally(`plain-${Date.now()}@example.com`);
      const csrf = await browser.csrfFrom('/portal/plans');
      expect((await browser.postForm('/portal/billing/checkout', { plan: 'pro', _csrf: csrf })).statusCode).toBe(404);
      expect((await browser.postForm('/portal/billing/manage', { _csrf: csrf })).statusCode).toBe(404);
      const page = (await browser.get('/portal/plans')).body;
      expect(page).toContain('an upgrade is an operator action');
      expect(page).not.toContain('>Upgrade</button>');
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, unknown>;
      };
      expect(document.paths['/webhooks/stripe']).toBeUndefined();
    },
  );
});
