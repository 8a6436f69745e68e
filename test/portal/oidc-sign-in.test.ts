// Google and Microsoft sign-in against local stand-ins: PKCE, state and nonce, and every forged or replayed piece
// refused.
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountIdentity } from '../../src/domain/ports/account-store.js';
import { createTestApp, useTestApp } from '../helpers/app.js';
import {
  authorizeAt,
  newGoogleUser,
  newMicrosoftUser,
  onNextIdToken,
  onNextTokenResponse,
  startMockProvider,
  type MockProvider,
  type MockProviderKind,
  type MockUser,
} from '../helpers/oidc-provider.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const PUBLIC_URL = 'http://127.0.0.1:3999';
let google: MockProvider;
let microsoft: MockProvider;

beforeAll(async () => {
  [google, microsoft] = await Promise.all([startMockProvider('google'), startMockProvider('microsoft')]);
});
afterAll(async () => {
  await Promise.all([google?.stop(), microsoft?.stop()]);
});

/** Both providers configured, Google at the given issuer. */
function providersEnv(googleIssuer: string): Record<string, string> {
  return {
    GOOGLE_CLIENT_ID: 'google-client',
    GOOGLE_CLIENT_SECRET: 'google-secret',
    GOOGLE_ISSUER: googleIssuer,
    MICROSOFT_CLIENT_ID: 'microsoft-client',
    MICROSOFT_CLIENT_SECRET: 'microsoft-secret',
    MICROSOFT_ISSUER: microsoft.issuer,
    PUBLIC_URL,
    SESSION_SECRET: 'a-session-secret-of-at-least-32-characters',
  };
}
// Registered after the providers' hooks: built once they listen, closed before they stop.
const t = useTestApp(() => ({ env: providersEnv(google.issuer) }));

const mock = (kind: MockProviderKind) => (kind === 'google' ? google : microsoft);

function identityOf(kind: MockProviderKind, user: MockUser): AccountIdentity {
  return kind === 'google'
    ? { provider: 'google', subject: user.sub! }
    : { provider: 'microsoft', subject: `${user.tid}:${user.oid}` };
}

/** Starts a sign-in in this browser; returns the provider's authorization URL. */
async function start(client: PortalClient, kind: MockProviderKind): Promise<URL> {
  const res = await client.get(`/portal/auth/${kind}`);
  expect(res.statusCode).toBe(303);
  return new URL(res.headers.location as string);
}

/** The whole round trip as one browser; returns the callback's response. */
async function signIn(client: PortalClient, kind: MockProviderKind) {
  const callback = await authorizeAt((await start(client, kind)).href);
  return client.get(callback);
}

/** Why the last id_token was refused, as the operator's log says. */
function lastRefusal(): string {
  const line = t.logs
    .map((l) => JSON.parse(l) as { msg: string; reason?: string })
    .filter((l) => l.msg === 'id_token refused')
    .at(-1);
  return line?.reason ?? '(no refusal logged)';
}

async function expectSignedOut(client: PortalClient) {
  const res = await client.get('/portal/');
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe('/portal/signin');
}

describe.each(['google', 'microsoft'] as const)('%s sign-in', (kind) => {
  const newUser = () => (kind === 'google' ? newGoogleUser() : newMicrosoftUser());

  it('sends state, nonce and an S256 PKCE challenge, and exchanges the code with the matching verifier', async () => {
    const client = new PortalClient(t.app);
    const authorization = await start(client, kind);
    const params = authorization.searchParams;
    expect(params.get('redirect_uri')).toBe(`${PUBLIC_URL}/portal/auth/${kind}/callback`);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('scope')?.split(' ')).toContain('openid');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('state')).toMatch(/^[\w-]{32}$/);
    expect(params.get('nonce')).toMatch(/^[\w-]{32}$/);

    let verifier: unknown;
    mock(kind).service.once(
      'beforeResponse',
      (_response: unknown, req: { body: Record<string, unknown> }) => (verifier = req.body.code_verifier),
    );
    mock(kind).signInAs(newUser());
    const res = await client.get(await authorizeAt(authorization.href));
    expect(res.statusCode).toBe(303);
    expect(createHash('sha256').update(String(verifier)).digest('base64url')).toBe(params.get('code_challenge'));
  });

  it('creates a free account keyed by the provider identity on first sign-in, and finds it again after', async () => {
    const user = newUser();
    mock(kind).signInAs(user);
    const first = new PortalClient(t.app);
    const res = await signIn(first, kind);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/');
    const account = await t.stores.accounts.findByIdentity(identityOf(kind, user));
    expect(account).toMatchObject({ plan: 'free', email: user.email });
    const dashboard = await first.get('/portal/');
    expect(dashboard.statusCode).toBe(200);
    expect(dashboard.body).toContain(user.email);

    const again = new PortalClient(t.app);
    await signIn(again, kind);
    expect((await t.stores.accounts.findByEmail(user.email!)).map((a) => a.id)).toEqual([account!.id]);
  });

  it('rotates the session at sign-in: the pre-sign-in cookie is dead afterwards', async () => {
    mock(kind).signInAs(newUser());
    const client = new PortalClient(t.app);
    const authorization = await start(client, kind);
    const before = new Map(client.cookies);
    await client.get(await authorizeAt(authorization.href));
    const name = 'qrm_session';
    expect(client.cookies.get(name)).toBeDefined();
    expect(client.cookies.get(name)).not.toBe(before.get(name));
    const stale = new PortalClient(t.app);
    stale.setCookie(name, before.get(name)!);
    await expectSignedOut(stale);
  });

  it('refuses a forged state, and the forgery burns that sign-in', async () => {
    const user = newUser();
    mock(kind).signInAs(user);
    const client = new PortalClient(t.app);
    const callback = await authorizeAt((await start(client, kind)).href);
    const forged = callback.replace(/state=[^&]+/, 'state=forged-state-value');
    expect((await client.get(forged)).statusCode).toBe(403);
    expect((await client.get(callback)).statusCode).toBe(403);
    expect(await t.stores.accounts.findByIdentity(identityOf(kind, user))).toBeUndefined();
    await expectSignedOut(client);
  });

  it('refuses a replayed callback, from the same browser or from a copy of its cookies', async () => {
    mock(kind).signInAs(newUser());
    const client = new PortalClient(t.app);
    const callback = await authorizeAt((await start(client, kind)).href);
    const copy = client.clone(); // holds the pre-sign-in cookie
    expect((await client.get(callback)).statusCode).toBe(303);
    expect((await copy.get(callback)).statusCode).toBe(403);
    expect((await client.get(callback)).statusCode).toBe(403);
    // The replay did not sign the real browser out.
    expect((await client.get('/portal/')).statusCode).toBe(200);
  });

  it(
    "refuses a callback carried into another browser (login CSRF): the state is bound to the starting browser's " +
      'session',
    async () => {
      const attacker = newUser();
      mock(kind).signInAs(attacker);
      const attackerBrowser = new PortalClient(t.app);
      const callback = await authorizeAt((await start(attackerBrowser, kind)).href);
      const victim = new PortalClient(t.app);
      await start(victim, kind); // the victim even has a sign-in of their own in progress
      expect((await victim.get(callback)).statusCode).toBe(403);
      await expectSignedOut(victim);
    },
  );

  it('refuses an id_token whose nonce is not this sign-in’s', async () => {
    const user = newUser();
    mock(kind).signInAs(user);
    onNextIdToken(mock(kind), (payload) => (payload.nonce = 'some-other-nonce'));
    const client = new PortalClient(t.app);
    expect((await signIn(client, kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/nonce does not match/);
    expect(await t.stores.accounts.findByIdentity(identityOf(kind, user))).toBeUndefined();
    await expectSignedOut(client);
  });

  it('refuses a replayed id_token: valid signature, but minted for an earlier sign-in', async () => {
    mock(kind).signInAs(newUser());
    let captured = '';
    onNextTokenResponse(mock(kind), (body) => (captured = body.id_token as string));
    expect((await signIn(new PortalClient(t.app), kind)).statusCode).toBe(303);

    const client = new PortalClient(t.app);
    onNextTokenResponse(mock(kind), (body) => (body.id_token = captured));
    expect((await signIn(client, kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/nonce does not match/);
    await expectSignedOut(client);
  });

  it('refuses an id_token whose claims were altered after signing', async () => {
    const victim = newUser();
    mock(kind).signInAs(newUser());
    onNextTokenResponse(mock(kind), (body) => {
      const [header, payload, signature] = (body.id_token as string).split('.');
      const claims = {
        ...JSON.parse(Buffer.from(payload!, 'base64url').toString()),
        sub: victim.sub ?? 'x',
        oid: victim.oid,
        tid: victim.tid,
      };
      body.id_token = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    });
    expect((await signIn(new PortalClient(t.app), kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/^ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
    expect(await t.stores.accounts.findByIdentity(identityOf(kind, victim))).toBeUndefined();
  });

  it("refuses an id_token signed by a key that is not the provider's, even under the provider's key id", async () => {
    mock(kind).signInAs(newUser());
    const rogue = generateKeyPairSync('rsa', { modulusLength: 2048 });
    onNextTokenResponse(mock(kind), (body) => {
      const original = body.id_token as string;
      const header = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(original), alg: 'RS256' })).toString(
        'base64url',
      );
      const payload = Buffer.from(JSON.stringify(decodeJwt(original))).toString('base64url');
      const signature = sign('sha256', Buffer.from(`${header}.${payload}`), rogue.privateKey).toString('base64url');
      body.id_token = `${header}.${payload}.${signature}`;
    });
    expect((await signIn(new PortalClient(t.app), kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/^ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  });

  it('refuses an id_token issued to another client (audience)', async () => {
    mock(kind).signInAs(newUser());
    onNextIdToken(mock(kind), (payload) => (payload.aud = 'another-client'));
    expect((await signIn(new PortalClient(t.app), kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/unexpected "aud" claim value/);
  });

  it('refuses an expired id_token', async () => {
    mock(kind).signInAs(newUser());
    const now = Math.floor(Date.now() / 1000);
    onNextIdToken(mock(kind), (payload) => Object.assign(payload, { iat: now - 300, nbf: now - 300, exp: now - 120 }));
    expect((await signIn(new PortalClient(t.app), kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/^ERR_JWT_EXPIRED: "exp" claim/);
  });

  it('refuses an id_token minted long before this sign-in, even if it has not expired', async () => {
    mock(kind).signInAs(newUser());
    const now = Math.floor(Date.now() / 1000);
    onNextIdToken(mock(kind), (payload) =>
      Object.assign(payload, { iat: now - 3600, nbf: now - 3600, exp: now + 3600 }),
    );
    expect((await signIn(new PortalClient(t.app), kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/^ERR_JWT_EXPIRED: "iat" claim/);
  });

  it('refuses an id_token from another issuer', async () => {
    mock(kind).signInAs(newUser());
    onNextIdToken(mock(kind), (payload) => (payload.iss = 'https://issuer.invalid'));
    expect((await signIn(new PortalClient(t.app), kind)).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/unexpected issuer/);
  });

  it('shows a provider refusal (access_denied) and signs nobody in', async () => {
    const client = new PortalClient(t.app);
    const authorization = await start(client, kind);
    const res = await client.get(
      `/portal/auth/${kind}/callback?error=access_denied&state=${authorization.searchParams.get('state')}`,
    );
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('access_denied');
    await expectSignedOut(client);
  });
});

describe('Microsoft specifics', () => {
  it("requires iss to be the template with the token's own tenant", async () => {
    const user = newMicrosoftUser();
    microsoft.signInAs(user);
    onNextIdToken(microsoft, (payload) => (payload.iss = String(payload.iss).replace(user.tid!, randomUUID())));
    expect((await signIn(new PortalClient(t.app), 'microsoft')).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/unexpected issuer/);
    expect(await t.stores.accounts.findByIdentity(identityOf('microsoft', user))).toBeUndefined();
  });

  it('keeps the same oid in two tenants apart: accounts are keyed by tid and oid', async () => {
    const oid = randomUUID();
    const a = { ...newMicrosoftUser(), oid };
    const b = { ...newMicrosoftUser(), oid };
    microsoft.signInAs(a);
    await signIn(new PortalClient(t.app), 'microsoft');
    microsoft.signInAs(b);
    await signIn(new PortalClient(t.app), 'microsoft');
    const [accountA, accountB] = await Promise.all([
      t.stores.accounts.findByIdentity(identityOf('microsoft', a)),
      t.stores.accounts.findByIdentity(identityOf('microsoft', b)),
    ]);
    expect(accountA).toBeDefined();
    expect(accountB).toBeDefined();
    expect(accountA!.id).not.toBe(accountB!.id);
  });
});

describe('Google specifics', () => {
  it('refuses an unverified Google e-mail address', async () => {
    const user = { ...newGoogleUser(), email_verified: false };
    google.signInAs(user);
    expect((await signIn(new PortalClient(t.app), 'google')).statusCode).toBe(401);
    expect(lastRefusal()).toMatch(/not verified/);
    expect(await t.stores.accounts.findByIdentity(identityOf('google', user))).toBeUndefined();
  });
});

describe('with providers configured', () => {
  it('offers both providers and no local sign-in: its route is gone entirely', async () => {
    const client = new PortalClient(t.app);
    const page = await client.get('/portal/signin');
    expect(page.body).toContain('/portal/auth/google');
    expect(page.body).toContain('/portal/auth/microsoft');
    expect(page.body).not.toContain('/portal/auth/local');
    const res = await client.postForm('/portal/auth/local', { email: 'sneaky@example.com' });
    expect(res.statusCode).toBe(404);
    expect(await t.stores.accounts.findByEmail('sneaky@example.com')).toEqual([]);
  });
});

describe('a provider that cannot be reached at start-up', () => {
  it('leaves the API and the other provider up, and says its sign-in is unavailable', async () => {
    const { freePort } = await import('../helpers/processes.js');
    const closed = await freePort();
    const degraded = await createTestApp({ env: providersEnv(`http://127.0.0.1:${closed}`) });
    try {
      const client = new PortalClient(degraded.app);
      const page = await client.get('/portal/signin');
      expect(page.body).toContain('Google sign-in is unavailable');
      expect(page.body).toContain('href="/portal/auth/microsoft"');
      expect((await client.get('/portal/auth/google')).statusCode).toBe(503);
      expect((await degraded.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(degraded.logs.join('\n')).toContain('Google sign-in is unavailable until restart');
    } finally {
      await degraded.close();
    }
  });
});

describe.each(['google', 'microsoft'] as const)('%s sign-in from an invitation', (kind) => {
  const newUser = () => (kind === 'google' ? newGoogleUser() : newMicrosoftUser());

  /** An invitation as viewer to `email`, made by an account's key; its page's path. */
  async function invitationFor(email: string) {
    const owner = await t.newCaller('pro');
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/QRManager/invitations',
      headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ email, role: 'viewer' }),
    });
    expect(created.statusCode).toBe(201);
    return { owner, path: new URL(created.json().acceptUrl).pathname };
  }

  /** Opens the invitation signed out, follows its sign-in link and the provider's button: the callback's answer. */
  async function signInFromInvitation(client: PortalClient, path: string) {
    const landing = await client.get(path);
    const signInUrl = /href="([^"]*\/signin\?next=[^"]+)"/.exec(landing.body)![1]!.replaceAll('&amp;', '&');
    const signInPage = await client.get(signInUrl);
    const button = new RegExp(`href="(/portal/auth/${kind}\\?next=[^"]+)"`).exec(signInPage.body)![1]!;
    const started = await client.get(button.replaceAll('&amp;', '&'));
    expect(started.statusCode).toBe(303);
    return client.get(await authorizeAt(started.headers.location as string));
  }

  it('returns to the invitation after the provider round trip, and the invitee joins with one click', async () => {
    const user = newUser();
    mock(kind).signInAs(user);
    const { owner, path } = await invitationFor(user.email!);
    const client = new PortalClient(t.app);
    const callback = await signInFromInvitation(client, path);
    expect(callback.statusCode).toBe(303);
    expect(callback.headers.location).toBe(path);
    const joinPage = await client.get(path);
    const joined = await client.postForm(`${path}/accept`, { _csrf: csrfTokenIn(joinPage.body)! });
    expect(joined.statusCode).toBe(303);
    const members = await t.app.inject({
      method: 'GET',
      url: '/api/v1/QRManager/members',
      headers: { 'x-api-key': owner.key },
    });
    expect(members.json().items).toContainEqual(
      expect.objectContaining({ email: user.email, role: 'viewer', provider: kind }),
    );
  });

  it('refuses a provider identity whose e-mail is not the invited one (403 invitation_email_mismatch)', async () => {
    const user = newUser();
    mock(kind).signInAs(user);
    const { path } = await invitationFor(`someone-else-${randomUUID()}@example.com`);
    const client = new PortalClient(t.app);
    expect((await signInFromInvitation(client, path)).headers.location).toBe(path);
    const joinPage = await client.get(path);
    const refused = await client.postForm(`${path}/accept`, { _csrf: csrfTokenIn(joinPage.body)! });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Invitation is for another e-mail address');
  });

  it.each([
    'https://evil.example/portal/invitations/abc',
    '//evil.example/portal/invitations/abc',
    '/portal/invitations/abc/../../keys',
    '/portal/keys',
  ])('never returns anywhere but an invitation page of this portal (next=%s)', async (next) => {
    mock(kind).signInAs(newUser());
    const client = new PortalClient(t.app);
    const started = await client.get(`/portal/auth/${kind}?next=${encodeURIComponent(next)}`);
    const callback = await client.get(await authorizeAt(started.headers.location as string));
    expect(callback.statusCode).toBe(303);
    expect(callback.headers.location).toBe('/portal/');
  });
});
