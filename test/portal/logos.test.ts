// The Logos page: an upload named in its query (as in the API), each logo's name shown and renamed, the playground's
// logo picker listing logos by name.
import { expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { logoPng } from '../helpers/logos.js';
import { PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();

async function signedIn(): Promise<PortalClient> {
  const client = new PortalClient(t.app);
  await client.signInLocally(`logos-${Date.now()}-${Math.random()}@example.com`);
  const accountId = ((await client.json('GET', '/portal/api/session')).json() as { account: { id: string } }).account
    .id;
  await t.stores.accounts.setPlan(accountId, 'pro');
  return client;
}

async function uploadNamed(client: PortalClient, name: string): Promise<string> {
  const token = await client.csrfFrom('/portal/logos');
  const res = await client.request({
    method: 'POST',
    url: `/portal/logos?name=${encodeURIComponent(name)}`,
    headers: { 'content-type': 'image/png', 'x-csrf-token': token! },
    payload: await logoPng(),
  });
  expect(res.statusCode).toBe(201);
  return (res.json() as { id: string }).id;
}

it('uploads a logo under its name, shows the name, and the playground picks it by name, not id', async () => {
  const client = await signedIn();
  const id = await uploadNamed(client, 'Acme <mark>');
  const page = await client.get('/portal/logos');
  expect(page.body).toContain(`id="name-${id}" name="name" type="text" value="Acme &lt;mark&gt;"`);
  const playground = await client.get('/portal/playground');
  expect(playground.body).toContain(`<option value="${id}">Acme &lt;mark&gt; (240 × 160)</option>`);
});

it('renames a logo from its row, and refuses a blank name with the page and a message', async () => {
  const client = await signedIn();
  const id = await uploadNamed(client, 'first name');
  const renamed = await client.postForm(`/portal/logos/${id}/rename`, {
    name: 'Spring poster',
    _csrf: await client.csrfFrom('/portal/logos'),
  });
  expect(renamed.statusCode).toBe(303);
  expect((await client.get('/portal/logos')).body).toContain('value="Spring poster"');
  const blank = await client.postForm(`/portal/logos/${id}/rename`, {
    name: '  ',
    _csrf: await client.csrfFrom('/portal/logos'),
  });
  expect(blank.statusCode).toBe(400);
  expect(blank.body).toContain('A logo&#39;s name is 1 to 64 characters');
  expect((await client.get('/portal/logos')).body).toContain('value="Spring poster"');
});
