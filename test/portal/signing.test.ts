// The Signed URLs page: a signing key created with its secret and a working signed example shown once, listed without
// it, revoked.
import { expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();

it('creates a signing key, shows its secret and a signed URL that answers the image once, and revokes it', async () => {
  const client = new PortalClient(t.app);
  await client.signInLocally(`signing-${Date.now()}@example.com`);
  const created = await client.postForm('/portal/signing', {
    name: 'newsletter',
    _csrf: await client.csrfFrom('/portal/signing'),
  });
  expect(created.statusCode).toBe(201);
  expect(created.headers['cache-control']).toBe('no-store');
  const secret = /id="signing-secret"[^>]*value="(qrs_[A-Za-z0-9_-]{43})"/.exec(created.body)?.[1];
  const example = /id="signed-example">([^<]+)</.exec(created.body)?.[1]?.replaceAll('&amp;', '&');
  expect(secret).toBeDefined();
  const path = new URL(example!).pathname + new URL(example!).search;
  const image = await t.app.inject({ method: 'GET', url: path });
  expect(image.statusCode).toBe(200);
  expect(image.headers['content-type']).toBe('image/png');

  const list = await client.get('/portal/signing');
  expect(list.body).toContain('newsletter');
  expect(list.body).not.toContain(secret!);
  const keyId = /data-signing-key-id="(sk_[A-Za-z0-9_-]{20})"/.exec(list.body)![1]!;
  const revoked = await client.postForm(`/portal/signing/${keyId}/revoke`, {
    _csrf: await client.csrfFrom('/portal/signing'),
  });
  expect(revoked.statusCode).toBe(303);
  expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(403);
});

it("lists the account's saved designs with their ids", async () => {
  const client = new PortalClient(t.app);
  await client.signInLocally(`designs-${Date.now()}@example.com`);
  const accountId = ((await client.json('GET', '/portal/api/session')).json() as { account: { id: string } }).account
    .id;
  await t.stores.designs.createWithinLimit(
    {
      id: 'des_AAAAAAAAAAAAAAAAAAAA',
      accountId,
      name: 'Spring <campaign>',
      options: { darkColor: '#112233' },
      createdAt: new Date(),
    },
    null,
  );
  const page = await client.get('/portal/signing');
  expect(page.body).toContain('data-design-id="des_AAAAAAAAAAAAAAAAAAAA"');
  expect(page.body).toContain('Spring &lt;campaign&gt;');
});
