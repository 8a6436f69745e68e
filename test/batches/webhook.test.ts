// The batch webhook: arrives once at a real HTTP server on 127.0.0.1, and verifies with the account's secret (Standard
// Webhooks).
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchWebhookSender } from '../../src/adapters/webhooks/webhook-sender.fetch.js';
import { createWebhookSender } from '../../src/composition/webhook-sender.js';
import { deliverDueWebhooks } from '../../src/services/batches/batch-webhook.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { acceptedBatchId, deleteBatch, getAs, postBatch, urlItems, waitForBatch } from '../helpers/batches.js';
import { waitFor } from '../helpers/wait.js';
import { startWebhookReceiver, verifyWebhook as verify, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let t: TestApp;
let receiver: WebhookReceiver;
let hookUrl: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  hookUrl = receiver.url;
  // The operator allows private targets here so the hook can reach this loopback server.
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
});

afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('the batch webhook', () => {
  it('arrives once when the batch completes, signed with the account secret', async () => {
    const { key, accountId } = await t.newCaller('pro');
    const res = await postBatch(t.app, key, { items: urlItems(20, 'hook', { size: 128 }), webhookUrl: hookUrl });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = JSON.parse(res.body) as { id: string };
    await waitForBatch(getAs(t.app, key), id);
    await receiver.waitFor(1, 10_000);
    const view = async () =>
      (
        await t.app.inject({ method: 'GET', url: `/api/v1/QRManager/batches/${id}`, headers: { 'x-api-key': key } })
      ).json();
    await waitFor('the delivery to be on record', async () => (await view()).webhook.state === 'delivered');
    // Where a duplicate would come from: the sweep, an hour on, long past any retry time. It finds nothing owed.
    const anHourOn = new Date(t.clock.now.getTime() + 3_600_000);
    expect(await t.stores.batches!.dueWebhooks(anHourOn, 100)).not.toContain(id);
    await deliverDueWebhooks({
      batches: t.stores.batches!,
      sender: new FetchWebhookSender({ allowPrivate: true }),
      clock: () => anHourOn,
    });

    expect(receiver.received).toHaveLength(1);
    expect((await view()).webhook).toMatchObject({ state: 'delivered', attempts: 1 });
    const message = receiver.received[0]!;
    expect(message.headers['webhook-id']).toBe(`msg_${id}`);
    const secret = await t.stores.batches!.webhookSecret(accountId);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(verify(secret, message)).toBe(true);
    expect(verify(await t.stores.batches!.webhookSecret((await t.newCaller('pro')).accountId), message)).toBe(false);
    expect(JSON.parse(message.body)).toMatchObject({
      type: 'batch.completed',
      data: { id, status: 'completed', succeeded: 20, total: 20 },
    });
  });

  it('refuses loopback and private targets unless the operator allows them', async () => {
    const sender = new FetchWebhookSender({ allowPrivate: false });
    for (const url of [hookUrl, 'http://10.1.2.3/x', 'http://[::1]:9/x', 'http://localhost:9/x']) {
      await expect(sender.send(url, {}, '{}')).rejects.toThrow(/private or loopback/);
    }
  });

  it(
    'refuses every IPv4-in-IPv6 form: mapped, compatible, ' + 'translated, NAT64 (both prefixes), 6to4 and Teredo',
    async () => {
      const sender = new FetchWebhookSender({ allowPrivate: false });
      for (const host of [
        '[::ffff:127.0.0.1]',
        '[::7f00:1]',
        '[::ffff:0:a00:1]',
        '[64:ff9b::a00:1]',
        '[64:ff9b:1::a00:1]',
        '[2002:a00:1::1]',
        '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
      ]) {
        await expect(sender.send(`http://${host}/x`, {}, '{}'), host).rejects.toThrow(/private or loopback/);
      }
    },
  );

  it('connects to the address it resolved and checked, never to a second answer', async () => {
    let lookups = 0;
    // A name no DNS knows: only the sender's own resolution can reach the receiver; a second lookup by fetch would
    // fail.
    const sender = new FetchWebhookSender({
      allowPrivate: true,
      resolve: async () => {
        lookups++;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const before = receiver.received.length;
    const url = new URL(hookUrl);
    expect(
      await sender.send(`http://pinned.invalid:${url.port}${url.pathname}`, { 'webhook-id': 'msg_pinned' }, '{}'),
    ).toBe(204);
    expect(lookups).toBe(1);
    expect(receiver.received.slice(before).map((m) => m.headers['webhook-id'])).toEqual(['msg_pinned']);
  });

  it('sends batch.cancelled when a batch is cancelled, and the batch shows its webhook delivered', async () => {
    const { key } = await t.newCaller('pro');
    const id = acceptedBatchId(
      await postBatch(t.app, key, { items: urlItems(3_000, 'cancel-hook', { size: 128 }), webhookUrl: hookUrl }),
    );
    const cancel = await deleteBatch(t.app, key, id);
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(JSON.parse(cancel.body)).toMatchObject({ status: 'cancelled', webhook: { state: 'pending', attempts: 0 } });
    const before = receiver.received.length;
    await deliverDueWebhooks({
      batches: t.stores.batches!,
      sender: new FetchWebhookSender({ allowPrivate: true }),
      clock: () => t.clock.now,
    });
    await receiver.waitFor(before + 1, 10_000);
    const mine = receiver.received.filter((m) => m.headers['webhook-id'] === `msg_${id}`);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]!.body)).toMatchObject({ type: 'batch.cancelled', data: { id, status: 'cancelled' } });
    const view = await getAs(t.app, key)(`/api/v1/QRManager/batches/${id}`);
    expect(JSON.parse(view.body)).toMatchObject({ webhook: { state: 'delivered', attempts: 1 } });
  });

  it(
    'keeps the event timestamp of the first attempt on a ' + 'retry, and names itself QR-Manager-Webhooks/<version>',
    async () => {
      const flaky = await startWebhookReceiver((n) => (n === 0 ? 500 : 204));
      try {
        const { key } = await t.newCaller('pro');
        const id = acceptedBatchId(
          await postBatch(t.app, key, { items: urlItems(3_000, 'retry-hook', { size: 128 }), webhookUrl: flaky.url }),
        );
        const cancel = await deleteBatch(t.app, key, id);
        const finishedAt = (JSON.parse(cancel.body) as { finishedAt: string }).finishedAt;
        // The sender every process builds (composition), as the app's own sweep would use it.
        const sender = createWebhookSender({ webhookAllowPrivate: true });
        await deliverDueWebhooks({ batches: t.stores.batches!, sender, clock: () => t.clock.now });
        await flaky.waitFor(1, 10_000);
        // The retry, a minute later by the sweep's clock.
        const later = new Date(t.clock.now.getTime() + 60_000);
        await deliverDueWebhooks({ batches: t.stores.batches!, sender, clock: () => later });
        await flaky.waitFor(2, 10_000);

        const [first, retry] = flaky.received;
        expect([first!.status, retry!.status]).toEqual([500, 204]);
        for (const message of [first!, retry!])
          expect(JSON.parse(message.body)).toMatchObject({ type: 'batch.cancelled', timestamp: finishedAt });
        // The header is the attempt's time (what receivers check against replays); the event's time stays in the body.
        expect(Number(retry!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp'])).toBe(60);
        const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
          version: string;
        };
        for (const message of flaky.received)
          expect(message.headers['user-agent']).toBe(`QR-Manager-Webhooks/${version}`);
      } finally {
        await flaky.close();
      }
    },
  );

  it('shows a refused target in the batch: webhook state refused, with the reason, never sent', async () => {
    const strict = await createTestApp();
    try {
      const { key } = await strict.newCaller('pro');
      const res = await postBatch(strict.app, key, {
        items: urlItems(2, 'refused-hook', { size: 128 }),
        webhookUrl: 'http://10.1.2.3/hook',
      });
      expect(res.statusCode, res.body).toBe(202);
      const { id } = JSON.parse(res.body) as { id: string };
      await waitForBatch(getAs(strict.app, key), id);
      await deliverDueWebhooks({
        batches: strict.stores.batches!,
        sender: new FetchWebhookSender({ allowPrivate: false }),
        clock: () => strict.clock.now,
      });
      const view = await strict.app.inject({
        method: 'GET',
        url: `/api/v1/QRManager/batches/${id}`,
        headers: { 'x-api-key': key },
      });
      const webhook = (JSON.parse(view.body) as { webhook: { state: string; attempts: number; lastError: string } })
        .webhook;
      expect(webhook).toMatchObject({ state: 'refused', attempts: 1 });
      expect(webhook.lastError).toMatch(/private or loopback/);
    } finally {
      await strict.close();
    }
  });
});
