// The batch webhook: arrives once at a real HTTP server on 127.0.0.1, and verifies with the account's secret (Standard Webhooks).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchWebhookSender } from '../../src/adapters/webhooks/webhook-sender.fetch.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { postBatch, urlItems, waitForBatch } from '../helpers/batches.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let t: TestApp;
let server: Server;
let hookUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/qr`;
  // The operator allows private targets here so the hook can reach this loopback server.
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
});

afterAll(async () => {
  await t.close();
  await new Promise((resolve) => server.close(resolve));
});

/** The receiver's side, written from the Standard Webhooks spec rather than with our signing code. */
function verify(secret: string, message: Received): boolean {
  const id = String(message.headers['webhook-id']);
  const timestamp = String(message.headers['webhook-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${message.body}`)
    .digest();
  return String(message.headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [version, value] = sig.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe('the batch webhook', () => {
  it('arrives once when the batch completes, signed with the account secret', async () => {
    const { key, accountId } = await t.newCaller('pro');
    const res = await postBatch(t.app, key, { items: urlItems(20, 'hook', { size: 128 }), webhookUrl: hookUrl });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = JSON.parse(res.body) as { id: string };
    await waitForBatch((url) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } }), id);
    const deadline = Date.now() + 10_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to show up, were there one

    expect(received).toHaveLength(1);
    const message = received[0]!;
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
