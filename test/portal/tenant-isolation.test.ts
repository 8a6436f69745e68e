// One account never sees or revokes another's keys or QR codes through the portal, not even by guessing ids.
import { beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { useTestApp, generate } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { PortalClient } from '../helpers/portal-client.js';

interface Tenant {
  client: PortalClient;
  accountId: string;
  csrf: string;
  key: { id: string; name: string; hint: string };
  secret: string;
}

let alice: Tenant;
let mallory: Tenant;

async function tenant(name: string): Promise<Tenant> {
  const client = new PortalClient(t.app);
  await client.signInLocally(`${name}-${Date.now()}@example.com`);
  const session = (await client.json('GET', '/portal/api/session')).json() as {
    account: { id: string };
    csrfToken: string;
  };
  const created = await client.json(
    'POST',
    '/portal/api/keys',
    { name: `${name}'s key` },
    { 'x-csrf-token': session.csrfToken },
  );
  const body = created.json() as { secret: string; key: Tenant['key'] };
  return { client, accountId: session.account.id, csrf: session.csrfToken, key: body.key, secret: body.secret };
}

const t = useTestApp();
beforeAll(async () => {
  alice = await tenant('alice');
  mallory = await tenant('mallory');
  expect(
    (await generate(t.app, alice.secret, { content: 'alice-private-payload', type: 'text', outputFormat: 'png' }))
      .statusCode,
  ).toBe(200);
});

async function aliceKeyIsActive(): Promise<boolean> {
  const res = await generate(t.app, alice.secret, {
    content: 'alice-private-payload',
    type: 'text',
    outputFormat: 'png',
  });
  return res.statusCode === 200;
}

describe('keys', () => {
  it('are listed only to their own account, on the page and in the JSON API', async () => {
    const page = await mallory.client.get('/portal/keys');
    expect(page.body).toContain('mallory&#39;s key');
    expect(page.body).not.toContain('alice');
    expect(page.body).not.toContain(alice.key.id);
    const listed = (await mallory.client.json('GET', '/portal/api/keys')).json() as { keys: Array<{ id: string }> };
    expect(listed.keys.map((k) => k.id)).toEqual([mallory.key.id]);
  });

  it('cannot be revoked by another account through the JSON API: 404, and the key keeps working', async () => {
    const res = await mallory.client.json('DELETE', `/portal/api/keys/${alice.key.id}`, undefined, {
      'x-csrf-token': mallory.csrf,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found' });
    expect(await aliceKeyIsActive()).toBe(true);
  });

  it('cannot be revoked by another account through the form: 404, and the key keeps working', async () => {
    const _csrf = await mallory.client.csrfFrom('/portal/keys');
    const res = await mallory.client.postForm(`/portal/keys/${encodeURIComponent(alice.key.id)}/revoke`, { _csrf });
    expect(res.statusCode).toBe(404);
    expect(await aliceKeyIsActive()).toBe(true);
  });

  it('answer a guessed id exactly like a missing one', async () => {
    const guessed = await mallory.client.json('DELETE', '/portal/api/keys/key_AAAAAAAAAAAAAAAAAAAA', undefined, {
      'x-csrf-token': mallory.csrf,
    });
    const foreign = await mallory.client.json('DELETE', `/portal/api/keys/${alice.key.id}`, undefined, {
      'x-csrf-token': mallory.csrf,
    });
    expect(guessed.statusCode).toBe(foreign.statusCode);
    expect((guessed.json() as { detail: string }).detail).toBe((foreign.json() as { detail: string }).detail);
  });
});

describe('QR codes', () => {
  it('are listed only to their own account', async () => {
    const mine = await alice.client.get('/portal/qrs');
    expect(mine.body).toContain('alice-private-payload');
    const theirs = await mallory.client.get('/portal/qrs');
    expect(theirs.body).not.toContain('alice-private-payload');
  });

  it(
    'thumbnails are served to the owner (decodable, and ' + 'free) and to nobody else, even knowing the fingerprint',
    async () => {
      const period = periodOf(t.clock.now);
      const [qr] = await t.stores.meter.qrs(alice.accountId, period, 10);
      const usageBefore = await t.stores.meter.usage(alice.accountId, period);

      const own = await alice.client.get(`/portal/qrs/${qr!.fingerprint}.png`);
      expect(own.statusCode).toBe(200);
      expect(own.headers['content-type']).toBe('image/png');
      expect(await decodeQr(own.rawPayload, 'png')).toEqual(readByAll('alice-private-payload'));
      expect(await t.stores.meter.usage(alice.accountId, period)).toEqual(usageBefore);

      const stolen = await mallory.client.get(`/portal/qrs/${qr!.fingerprint}.png`);
      expect(stolen.statusCode).toBe(404);
      expect(stolen.headers['content-type']).not.toBe('image/png');
    },
  );

  it('thumbnails need a session at all', async () => {
    const [qr] = await t.stores.meter.qrs(alice.accountId, periodOf(t.clock.now), 10);
    const anonymous = new PortalClient(t.app);
    const res = await anonymous.get(`/portal/qrs/${qr!.fingerprint}.png`);
    expect(res.statusCode).toBe(303);
  });
});

describe('without a session', () => {
  it('the JSON API answers 401 problem+json', async () => {
    const res = await new PortalClient(t.app).json('GET', '/portal/api/keys');
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
});
