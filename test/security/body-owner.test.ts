// Every body has an owner and a deadline before it is read: anonymous bodies refused from their headers, slow bodies
// cut with
// 408, uploads capped per key, per portal session and per address (real sockets: app.inject sends a body all at once).
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';
import { waitFor } from '../helpers/wait.js';

const EIGHT_MIB = 8 * 1024 * 1024;
const DECODE_URL = '/api/v1/QRManager/decode';

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * One connection of a client that sends a request's head and, maybe, the first bytes of its body, then nothing more.
 */
class StalledUpload {
  readonly socket: Socket;
  /** The server's answer, once the server has closed the connection after it; rejects when none comes in time. */
  readonly answer: Promise<RawAnswer>;

  constructor(port: number, method: string, path: string, headers: Record<string, string>, firstBytes?: Buffer) {
    this.socket = connect(port, '127.0.0.1');
    const head = [
      `${method} ${path} HTTP/1.1`,
      'host: localhost',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      '',
    ];
    this.socket.write(head.join('\r\n'));
    if (firstBytes) this.socket.write(firstBytes);
    const chunks: Buffer[] = [];
    this.socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    this.answer = new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${method} ${path} within 10 s (the server is waiting for the body)`)),
        10_000,
      );
      const settle = () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('latin1');
        const [headText = '', body = ''] = text.split('\r\n\r\n', 2);
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? 0);
        if (status === 0) reject(new Error(`the connection closed without an answer to ${method} ${path}`));
        else resolve({ status, head: headText.toLowerCase(), body });
      };
      this.socket.on('close', settle);
    });
    this.answer.catch(() => undefined); // a stalled upload the test closes itself never gets one
    this.socket.on('error', () => undefined); // the server may reset a connection it closed on unread bytes
  }

  close(): void {
    this.socket.destroy();
  }
}

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

/** A signed-in portal session: its cookie and CSRF token, for raw requests. */
async function portalSession(t: TestApp, email: string): Promise<{ cookie: string; csrf: string }> {
  const client = new PortalClient(t.app);
  await client.signInLocally(email);
  const session = (await client.json('GET', '/portal/api/session')).json() as { csrfToken: string };
  return { cookie: `qrm_session=${client.cookies.get('qrm_session')}`, csrf: session.csrfToken };
}

/** Every route's path and methods, from Fastify's own route tree. */
function routesOf(t: TestApp): Array<{ path: string; methods: string[] }> {
  const routes: Array<{ path: string; methods: string[] }> = [];
  const stack: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)(?:[├└]── )?(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match || match[2] === '') continue;
    const depth = Math.floor(match[1]!.length / 4);
    stack.length = depth;
    stack.push(match[2]!);
    if (match[3]) routes.push({ path: stack.join(''), methods: match[3].split(', ') });
  }
  return routes;
}

describe('bodies refused from their headers when nobody owns them', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    port = await listen(t);
  }, 60_000);
  afterAll(async () => t?.close());

  it(
    'answers an anonymous 8 MiB playground decode with 403 ' + 'before a byte of its body, and closes the connection',
    async () => {
      const upload = new StalledUpload(port, 'POST', '/portal/playground/decode', {
        'content-type': 'image/png',
        'content-length': String(EIGHT_MIB),
      });
      const answer = await upload.answer;
      expect(answer.status).toBe(403);
      expect(answer.head).toContain('connection: close');
    },
  );

  it('answers a session that is not signed in, or a signed-in one, without a CSRF header with 403', async () => {
    const client = new PortalClient(t.app);
    await client.csrfFrom('/portal/signin');
    const anonymous = `qrm_session=${client.cookies.get('qrm_session')}`;
    const headers = { 'content-type': 'image/png', 'content-length': String(EIGHT_MIB) };
    const notSignedIn = await new StalledUpload(port, 'POST', '/portal/playground/decode', {
      ...headers,
      cookie: anonymous,
    }).answer;
    expect(notSignedIn.status).toBe(403);
    const { cookie } = await portalSession(t, `owner-${Date.now()}@example.com`);
    expect(
      (await new StalledUpload(port, 'POST', '/portal/playground/decode', { ...headers, cookie }).answer).status,
    ).toBe(403);
  });

  it(
    'answers every route that takes a body, called ' + 'anonymously with an 8 MiB body, before reading any ' + 'of it',
    async () => {
      const bodyRoutes = routesOf(t).flatMap(({ path, methods }) =>
        methods
          .filter((method) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method))
          .map((method) => ({ method, path: path.replace(/:[a-zA-Z]+/g, 'x') })),
      );
      // The families: the API, the portal's pages and JSON API, uploads, and the anonymous forms of dynamic codes.
      expect(bodyRoutes.map((route) => route.path)).toEqual(
        expect.arrayContaining([
          DECODE_URL,
          '/api/v1/QRManager/batches',
          '/api/v1/QRManager/logos',
          '/portal/playground/decode',
          '/portal/logos',
          '/portal/batches',
          '/portal/api/keys',
          '/r/x',
        ]),
      );
      for (const route of bodyRoutes) {
        const headers = { 'content-type': 'application/octet-stream', 'content-length': String(EIGHT_MIB) };
        const answer = await new StalledUpload(port, route.method, route.path, headers).answer;
        expect([303, 401, 403, 404, 413, 415], `${route.method} ${route.path} answered ${answer.status}`).toContain(
          answer.status,
        );
      }
    },
    120_000,
  );
});

describe('a body slower than the minimum rate', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    // A short window, so the cut comes soon: 64 KiB/s over 300 ms is 19,660 bytes a window.
    t = await createTestApp({ env: { BODY_RATE_WINDOW_MS: '300', BODY_MIN_BYTES_PER_SECOND: '65536' } });
    port = await listen(t);
  }, 60_000);
  afterAll(async () => t?.close());

  it(
    'is cut with 408 request_timeout (problem+json) at the end of its window, and the cut decode is counted, not ' +
      'given back',
    async () => {
      const { key, accountId } = await t.newCaller('free');
      const before = await t.stores.meter.usage(accountId, periodOf(t.clock.now));
      const upload = new StalledUpload(
        port,
        'POST',
        DECODE_URL,
        { 'x-api-key': key, 'content-type': 'image/png', 'content-length': String(EIGHT_MIB) },
        Buffer.alloc(4096),
      );
      const answer = await upload.answer;
      expect(answer.status).toBe(408);
      expect(answer.head).toContain('content-type: application/problem+json');
      expect(answer.head).toContain('connection: close');
      expect(JSON.parse(answer.body)).toMatchObject({
        status: 408,
        code: 'request_timeout',
        minBytesPerSecond: 65536,
        windowMs: 300,
      });
      const after = await waitFor('the usage of the cut decode', async () => {
        const usage = await t.stores.meter.usage(accountId, periodOf(t.clock.now));
        return usage.requests > before.requests && usage;
      });
      expect(after.requests).toBe(before.requests + 1);
    },
  );

  it('cuts a portal upload too, and lets a body that arrives whole through', async () => {
    const { cookie, csrf } = await portalSession(t, `slow-${Date.now()}@example.com`);
    const headers = { cookie, 'x-csrf-token': csrf, 'content-type': 'image/png', 'content-length': String(EIGHT_MIB) };
    const portal = await new StalledUpload(port, 'POST', '/portal/playground/decode', headers, Buffer.alloc(1024))
      .answer;
    expect(portal.status).toBe(408);
    const { key } = await t.newCaller('free');
    const whole = await fetch(`http://127.0.0.1:${port}${DECODE_URL}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'image/png' },
      body: new Uint8Array(200_000).fill(7),
    });
    // Read whole and judged: not a picture (400), neither cut nor refused.
    expect(whole.status).toBe(400);
    expect(((await whole.json()) as { code: string }).code).toBe('invalid_request');
  });
});

describe('uploads in flight', () => {
  let t: TestApp;
  let port: number;
  const open: StalledUpload[] = [];
  beforeAll(async () => {
    // No rate cut while these hold their slots; two uploads a caller, five an address.
    t = await createTestApp({
      env: { BODY_MIN_BYTES_PER_SECOND: '0', UPLOADS_PER_CALLER: '2', UPLOADS_PER_ADDRESS: '5' },
    });
    port = await listen(t);
  }, 60_000);
  afterAll(async () => {
    for (const upload of open) upload.close();
    await t?.close();
  });

  const stalled = (path: string, headers: Record<string, string>) => {
    const upload = new StalledUpload(
      port,
      'POST',
      path,
      { 'content-type': 'image/png', 'content-length': String(EIGHT_MIB), ...headers },
      Buffer.alloc(1024),
    );
    open.push(upload);
    return upload;
  };
  /** Uploads holding a slot, as the server reports them (qrm_uploads_in_flight). */
  const inFlight = async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(/^qrm_uploads_in_flight (\d+)$/m.exec(text)?.[1]);
  };
  /** Sends a stalled upload and waits until the server holds its slot (it is the n-th in flight). */
  const admitted = async (path: string, headers: Record<string, string>, n: number) => {
    stalled(path, headers);
    await waitFor(`upload ${n} to hold its slot`, async () => (await inFlight()) === n);
  };

  it(
    'caps a key, a portal session and an address, answering ' + '429 too_many_uploads with Retry-After before the body',
    async () => {
      const first = await t.newCaller('pro');
      const keyHeaders = { 'x-api-key': first.key };
      await admitted(DECODE_URL, keyHeaders, 1);
      await admitted(DECODE_URL, keyHeaders, 2);
      // The two above hold their slots until they end: the third of the key is refused at once.
      const third = await stalled(DECODE_URL, keyHeaders).answer;
      expect(third.status).toBe(429);
      expect(third.head).toMatch(/retry-after: \d+/);
      expect(JSON.parse(third.body)).toMatchObject({ code: 'too_many_uploads' });

      const { cookie, csrf } = await portalSession(t, `cap-${Date.now()}@example.com`);
      const sessionHeaders = { cookie, 'x-csrf-token': csrf };
      await admitted('/portal/playground/decode', sessionHeaders, 3);
      await admitted('/portal/playground/decode', sessionHeaders, 4);
      expect((await stalled('/portal/playground/decode', sessionHeaders).answer).status).toBe(429);

      // Four of the address's five are held; another key takes the fifth, and a third key is refused for the address.
      const second = await t.newCaller('pro');
      await admitted(DECODE_URL, { 'x-api-key': second.key }, 5);
      const other = await t.newCaller('pro');
      const overAddress = await stalled(DECODE_URL, { 'x-api-key': other.key }).answer;
      expect(overAddress.status).toBe(429);
      expect(JSON.parse(overAddress.body)).toMatchObject({ code: 'too_many_uploads' });
    },
  );

  it('gives every slot back when the uploads are dropped, and admits the next', async () => {
    expect(await inFlight()).toBe(5);
    for (const upload of open.splice(0)) upload.close();
    await waitFor('every slot to be given back', async () => (await inFlight()) === 0);
    const { key } = await t.newCaller('pro');
    await admitted(DECODE_URL, { 'x-api-key': key }, 1);
  });
});
