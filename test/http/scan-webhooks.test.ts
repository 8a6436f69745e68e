// Scan webhooks: the API, delivery through the running service (signed, checked with the official standardwebhooks
// package, scans equal
// to the statistics), and the dispatcher driven tick by tick (coalescing, retries under the same id, refused addresses,
// a restart).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { createStores } from '../../src/composition/stores.js';
import { FetchWebhookSender } from '../../src/adapters/webhooks/webhook-sender.fetch.js';
import { newSlug } from '../../src/domain/dynamic-code.js';
import { NO_ROUTING } from '../../src/domain/code-routing.js';
import { ScanWebhookDispatcher, type CodeScannedPayload } from '../../src/services/scan-webhooks.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';
import { codesApi, scan, USER_AGENTS } from '../helpers/codes.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { createStoredAccount } from '../helpers/stored-account.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const HOOKS_URL = '/api/v1/QRManager/webhooks';
let t: TestApp;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(answer?: (n: number) => number): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(answer);
  receivers.push(r);
  return r;
}

const hooks = (key: string) => ({
  create: (body: unknown) =>
    t.app.inject({
      method: 'POST',
      url: HOOKS_URL,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    }),
  list: () => t.app.inject({ method: 'GET', url: HOOKS_URL, headers: { 'x-api-key': key } }),
  remove: (id: string) => t.app.inject({ method: 'DELETE', url: `${HOOKS_URL}/${id}`, headers: { 'x-api-key': key } }),
});

/** Checked by the official Standard Webhooks library, not by our signing code. */
function verified(secret: string, message: ReceivedWebhook): CodeScannedPayload {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(message.headers[h])]),
  );
  return new Webhook(secret).verify(message.body, headers) as CodeScannedPayload;
}

describe('the scan webhook API', () => {
  it('registers, lists and deletes endpoints, each account seeing only its own, at most five', async () => {
    const { key } = await t.newCaller('pro');
    const api = hooks(key);
    const created = await api.create({ url: 'https://hooks.example.com/qr', events: ['code.scanned'] });
    expect(created.statusCode).toBe(201);
    const { secret: _shownOnce, ...hook } = created.json() as {
      id: string;
      url: string;
      events: string[];
      createdAt: string;
      secret: string;
    };
    expect(hook).toMatchObject({ url: 'https://hooks.example.com/qr', events: ['code.scanned'] });
    expect(created.headers.location).toBe(`${HOOKS_URL}/${hook.id}`);
    expect((await api.list()).json()).toEqual({ items: [hook], nextCursor: null });

    const stranger = hooks((await t.newCaller('pro')).key);
    expect((await stranger.list()).json()).toEqual({ items: [], nextCursor: null });
    expect((await stranger.remove(hook.id)).statusCode).toBe(404);

    for (let i = 0; i < 4; i++)
      expect((await api.create({ url: `https://hooks.example.com/${i}`, events: ['code.scanned'] })).statusCode).toBe(
        201,
      );
    const sixth = await api.create({ url: 'https://hooks.example.com/6', events: ['code.scanned'] });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json()).toMatchObject({ code: 'webhook_limit_reached', limit: 5 });
    expect((await api.remove(hook.id)).statusCode).toBe(204);
    expect((await api.remove(hook.id)).statusCode).toBe(404);
    expect(((await api.list()).json() as { items: unknown[] }).items).toHaveLength(4);
  });

  it('refuses a bad url or event with 400 naming the field', async () => {
    const api = hooks((await t.newCaller('pro')).key);
    for (const [body, field] of [
      [{ url: 'ftp://hooks.example.com/', events: ['code.scanned'] }, 'url'],
      [{ url: 'not a url', events: ['code.scanned'] }, 'url'],
      [{ url: 'https://hooks.example.com/', events: ['batch.finished'] }, 'events.0'],
      [{ url: 'https://hooks.example.com/', events: [] }, 'events'],
      [{ url: 'https://hooks.example.com/' }, 'events'],
    ] as const) {
      const res = await api.create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect((res.json() as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toContain(field);
    }
  });
});

describe('scan webhooks through the running service', () => {
  it('arrive signed with the account secret, and their scans and device split equal the statistics', async () => {
    const caller = await t.newCaller('pro');
    const target = await receiver();
    expect((await hooks(caller.key).create({ url: target.url, events: ['code.scanned'] })).statusCode).toBe(201);
    const api = codesApi(t.app, caller.key);
    const first = await api.created('https://example.com/a');
    const second = await api.created('https://example.com/b');
    const devices = Object.keys(USER_AGENTS) as Array<keyof typeof USER_AGENTS>;
    const N = 40;
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        scan(t.app, (i % 4 === 0 ? second : first).slug, {
          userAgent: USER_AGENTS[devices[i % devices.length]!],
          ip: `10.1.0.${i}`,
        }),
      ),
    );
    const secret = await t.stores.batches!.webhookSecret(caller.accountId);
    const told = () => target.received.map((m) => verified(secret, m)).reduce((n, p) => n + p.data.scans, 0);
    await waitFor('every scan to be told by a webhook', () => told() >= N, { timeoutMs: 20_000, intervalMs: 20 });
    const payloads = target.received.map((m) => verified(secret, m));
    expect(payloads.every((p) => p.type === 'code.scanned')).toBe(true);
    expect(new Set(target.received.map((m) => m.headers['webhook-id'])).size).toBe(target.received.length);

    const toldOf = (id: string) => {
      const sum = { scans: 0, devices: { ios: 0, android: 0, desktop: 0, other: 0 } as Record<string, number> };
      for (const code of payloads.flatMap((p) => p.data.codes).filter((c) => c.id === id)) {
        sum.scans += code.scans;
        for (const d of Object.keys(sum.devices)) sum.devices[d]! += code.devices[d as 'ios'];
      }
      return sum;
    };
    for (const code of [first, second]) {
      const stats = (await api.stats(code.id)).json() as { totals: { scans: number }; devices: Record<string, number> };
      expect(toldOf(code.id)).toEqual({ scans: stats.totals.scans, devices: stats.devices });
    }
    expect(toldOf(first.id).scans + toldOf(second.id).scans).toBe(N);
  }, 30_000);
});

describe('the signing secret', () => {
  const rotate = (key: string) =>
    t.app.inject({ method: 'POST', url: `${HOOKS_URL}/secret/rotate`, headers: { 'x-api-key': key } });
  const signatures = (message: ReceivedWebhook) => String(message.headers['webhook-signature']).split(' ');

  /** A webhook on a fresh receiver, one scan, and the message that told it. */
  async function oneScanTold(key: string) {
    const target = await receiver();
    const created = await hooks(key).create({ url: target.url, events: ['code.scanned'] });
    expect(created.statusCode).toBe(201);
    const code = await codesApi(t.app, key).created('https://example.com/rotated');
    expect((await scan(t.app, code.slug)).statusCode).toBe(302);
    await waitFor('the scan to be told', () => target.received.length > 0 || undefined, {
      timeoutMs: 20_000,
      intervalMs: 20,
    });
    return { created: created.json() as { secret?: string }, message: target.received[0]! };
  }

  it('is answered once by POST /webhooks, never listed, and signs what is delivered', async () => {
    const { key } = await t.newCaller('pro');
    const { created, message } = await oneScanTold(key);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(JSON.stringify((await hooks(key).list()).json())).not.toContain('whsec_');
    expect(signatures(message)).toHaveLength(1);
    expect(verified(created.secret!, message).data.scans).toBe(1);
  }, 30_000);

  it('rotates to a new secret shown once; for 24 hours both sign, each verifying alone', async () => {
    const { key } = await t.newCaller('pro');
    const old = (
      await hooks(key).create({ url: 'https://hooks.example.com/unused', events: ['domain.suspended'] })
    ).json().secret as string;
    const rotated = await rotate(key);
    expect(rotated.statusCode).toBe(200);
    const { secret, previousValidUntil } = rotated.json() as { secret: string; previousValidUntil: string };
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(old);
    expect(previousValidUntil).toBe(new Date(t.clock.now.getTime() + 24 * 3_600_000).toISOString());

    const { message } = await oneScanTold(key);
    expect(signatures(message)).toHaveLength(2);
    expect(signatures(message).every((s) => s.startsWith('v1,'))).toBe(true);
    expect(verified(secret, message).data.scans).toBe(1);
    expect(verified(old, message).data.scans).toBe(1);
  }, 30_000);

  it('after the 24 hours only the new secret signs', async () => {
    const { key } = await t.newCaller('pro');
    const now = t.clock.now;
    // Rotated a day and a second ago: the overlap ended a second ago.
    t.clock.now = new Date(now.getTime() - 24 * 3_600_000 - 1_000);
    const old = (
      await hooks(key).create({ url: 'https://hooks.example.com/unused', events: ['domain.suspended'] })
    ).json().secret as string;
    const { secret } = (await rotate(key)).json() as { secret: string };
    t.clock.now = now;

    const { message } = await oneScanTold(key);
    expect(signatures(message)).toHaveLength(1);
    expect(verified(secret, message).data.scans).toBe(1);
    expect(() => verified(old, message)).toThrow(WebhookVerificationError);
  }, 30_000);

  it('rotating needs a key', async () => {
    expect((await t.app.inject({ method: 'POST', url: `${HOOKS_URL}/secret/rotate` })).statusCode).toBe(401);
  });
});

/** A dispatcher over `stores` on the test's clock, sending for real (to loopback unless told otherwise). */
function dispatcherOver(
  stores: StoreAdapters,
  clock: { now: Date },
  backoffMs: number[],
  allowPrivate = true,
): ScanWebhookDispatcher {
  return new ScanWebhookDispatcher({
    scanEvents: stores.scanEvents,
    scanWebhooks: stores.scanWebhooks,
    secrets: stores.batches!,
    sender: new FetchWebhookSender({ allowPrivate }),
    clock: () => clock.now,
    backoffMs,
  });
}

/**
 * Records `n` scans of the code by people (a visitor each) at the clock's time, in the stores of the moment, and
 * flushes them.
 */
function personScans(stores: () => StoreAdapters, code: { id: string; accountId: string }, clock: { now: Date }) {
  return async (n: number) => {
    const { scans } = stores();
    for (let i = 0; i < n; i++) {
      scans.record({
        codeId: code.id,
        accountId: code.accountId,
        at: clock.now,
        visitor: `v${i}`,
        device: 'ios',
        language: 'en',
        place: null,
        bot: false,
      });
    }
    await scans.flush();
  };
}

/** A pro account in `stores` with one code (to https://example.com/) and a code.scanned webhook to `url`. */
async function codeWithScanWebhook(stores: StoreAdapters, url: string, prefix: string) {
  const account = await createStoredAccount(stores.accounts, { prefix });
  const code = await stores.codes.createWithinLimit(
    {
      accountId: account.id,
      slug: newSlug(),
      target: 'https://example.com/',
      name: null,
      routing: NO_ROUTING,
      createdAt: new Date(),
    },
    10,
  );
  if (typeof code === 'string') throw new Error(code);
  await stores.scanWebhooks.create({ accountId: account.id, url, events: ['code.scanned'], createdAt: new Date() }, 5);
  return { account, code };
}

describe('the scan webhook dispatcher, tick by tick', () => {
  async function setup(answer: (n: number) => number, options: { allowPrivate?: boolean } = {}) {
    const stores = createSqliteStores(':memory:');
    const target = await receiver(answer);
    const { account, code } = await codeWithScanWebhook(stores, target.url, 's');
    const clock = { now: new Date() };
    const dispatcher = dispatcherOver(stores, clock, [60_000, 120_000], options.allowPrivate ?? true);
    const scans = personScans(() => stores, code, clock);
    return { stores, dispatcher, target, clock, scans, secret: await stores.batches!.webhookSecret(account.id) };
  }

  it('coalesces every scan since the last message into one, and sends nothing when there was none', async () => {
    const { stores, dispatcher, target, scans, secret } = await setup(() => 204);
    await scans(30);
    expect(await dispatcher.tick()).toBe(1);
    expect(await dispatcher.tick()).toBe(0);
    await scans(2);
    expect(await dispatcher.tick()).toBe(1);
    expect(target.received.map((m) => verified(secret, m).data.scans)).toEqual([30, 2]);
    expect(verified(secret, target.received[0]!).data.codes[0]!.devices).toEqual({
      ios: 30,
      android: 0,
      desktop: 0,
      other: 0,
    });
    await stores.close();
  });

  it(
    'retries a failed message with the same id after its ' + 'backoff, then sends the scans that came meanwhile',
    async () => {
      const { stores, dispatcher, target, clock, scans, secret } = await setup((n) => (n === 0 ? 503 : 204));
      await scans(3);
      expect(await dispatcher.tick()).toBe(1);
      await scans(4);
      expect(await dispatcher.tick()).toBe(0); // the retry is not due, and the new scans wait behind it
      clock.now = new Date(clock.now.getTime() + 60_000);
      expect(await dispatcher.tick()).toBe(1);
      expect(await dispatcher.tick()).toBe(1);
      const [failed, retried, next] = target.received;
      expect(retried!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
      expect(retried!.body).toBe(failed!.body);
      expect(verified(secret, retried!).data.scans).toBe(3);
      expect(verified(secret, next!).data.scans).toBe(4);
      await stores.close();
    },
  );

  it('never sends to a private address unless the operator allows it, and does not retry a refused one', async () => {
    const { stores, dispatcher, target, clock, scans } = await setup(() => 204, { allowPrivate: false });
    await scans(1);
    expect(await dispatcher.tick()).toBe(1); // attempted, refused before any connection
    clock.now = new Date(clock.now.getTime() + 600_000);
    expect(await dispatcher.tick()).toBe(0);
    expect(target.received).toEqual([]);
    await stores.close();
  });
});

describe('scan webhooks across a restart', () => {
  /**
   * The process stops after a message failed and after more scans were fanned out behind it; a new process over the
   * same stores retries the message under the same id and body, then sends the later scans, each exactly once.
   */
  async function restartCase(open: () => Promise<StoreAdapters>) {
    let stores = await open();
    const target = await receiver((n) => (n === 0 ? 503 : 204));
    const { account, code } = await codeWithScanWebhook(stores, target.url, 'r');
    const clock = { now: new Date() };
    const scans = personScans(() => stores, code, clock);
    const secret = await stores.batches!.webhookSecret(account.id);

    const before = dispatcherOver(stores, clock, [60_000]);
    await scans(3);
    expect(await before.tick()).toBe(1); // answered 503: to be retried in a minute
    await scans(4);
    expect(await before.tick()).toBe(0); // fanned out, waiting behind the message being retried
    await stores.close();

    stores = await open();
    const after = dispatcherOver(stores, clock, [60_000]);
    clock.now = new Date(clock.now.getTime() + 60_000);
    expect(await after.tick()).toBe(1);
    expect(await after.tick()).toBe(1);
    clock.now = new Date(clock.now.getTime() + 3_600_000);
    expect(await after.tick()).toBe(0);
    const [failed, retried, next] = target.received;
    expect(target.received).toHaveLength(3);
    expect([retried!.headers['webhook-id'], retried!.body]).toEqual([failed!.headers['webhook-id'], failed!.body]);
    expect(next!.headers['webhook-id']).not.toBe(failed!.headers['webhook-id']);
    expect([retried!, next!].map((m) => verified(secret, m).data.scans)).toEqual([3, 4]);
    await stores.close();
  }

  it('embedded (SQLite): nothing waiting is lost, nothing is told twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qrm-scan-hooks-'));
    try {
      await restartCase(async () => createSqliteStores(dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('Redis mode (scans counted in Redis): nothing waiting is lost, nothing is told twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qrm-scan-hooks-'));
    const redis = await startRedisServer();
    try {
      const redisKeyPrefix = `t${randomUUID()}:`;
      await restartCase(() =>
        createStores({ dataDir: dir, redis: { url: redis.url }, mongodbUrl: undefined }, { redisKeyPrefix }),
      );
    } finally {
      await redis.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
