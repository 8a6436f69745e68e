// The batch webhook: arrives once at a real HTTP server on 127.0.0.1, and verifies with the account's secret (Standard Webhooks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchWebhookSender } from '../../src/adapters/webhooks/webhook-sender.fetch.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { postBatch, urlItems, waitForBatch } from '../helpers/batches.js';
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
    await waitForBatch((url) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } }), id);
    await receiver.waitFor(1, 10_000);
    await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to show up, were there one

    expect(receiver.received).toHaveLength(1);
    const message = receiver.received[0]!;
    expect(message.headers['webhook-id']).toBe(`msg_${id}`);
    const secret = await t.stores.batches!.webhookSecret(accountId);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(verify(secret, message)).toBe(true);
    expect(verify(await t.stores.batches!.webhookSecret((await t.newCaller('pro')).accountId), message)).toBe(false);
    expect(JSON.parse(message.body)).toMatchObject({ type: 'batch.completed', data: { id, status: 'completed', succeeded: 20, total: 20 } });
  });

  it('refuses loopback and private targets unless the operator allows them', async () => {
    const sender = new FetchWebhookSender({ allowPrivate: false });
    for (const url of [hookUrl, 'http://10.1.2.3/x', 'http://[::1]:9/x', 'http://localhost:9/x']) {
      await expect(sender.send(url, {}, '{}')).rejects.toThrow(/private or loopback/);
    }
  });
});
