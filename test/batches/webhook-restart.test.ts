// The batch webhook survives a SIGKILL: the retry schedule lives in the store, and the restarted server delivers it,
// once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { FetchWebhookSender } from '../../src/adapters/webhooks/webhook-sender.fetch.js';
import { deliverDueWebhooks } from '../../src/services/batches/batch-webhook.js';
import { BATCHES_URL } from '../helpers/batches.js';
import { runCli, startServer, type RunningServer } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let dataDir: string;
let env: Record<string, string>;
let server: RunningServer | undefined;
let receiver: WebhookReceiver;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-webhook-restart-'));
  env = { QR_DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: 'true' };
  // The first attempt is answered 500, every later one 204.
  receiver = await startWebhookReceiver((n) => (n === 0 ? 500 : 204));
  server = await startServer(env);
}, 60_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a batch webhook whose server is killed between attempts', () => {
  it('is sent again by the restarted server, with the same webhook-id, and delivered once', async () => {
    await runCli(['accounts', 'create', '--email', 'hooks@example.com'], env);
    const key = (await runCli(['keys', 'create', '--email', 'hooks@example.com', '--name', 'ci'], env)).stdout.trim();
    const items = Array.from({ length: 3 }, (_, i) => ({
      content: `https://example.com/restart/${i}`,
      type: 'url',
      outputFormat: 'png',
      size: 128,
    }));
    const res = await fetch(`${server!.baseUrl}${BATCHES_URL}`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ items, webhookUrl: receiver.url }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };

    await receiver.waitFor(1, 30_000);
    // Once the failed attempt is on record (a retry due in 1 s), the server is SIGKILLed before it makes that retry.
    const stores = createSqliteStores(dataDir);
    try {
      await waitFor(
        'the failed attempt on record',
        async () => (await stores.batches!.dueWebhooks(new Date(Date.now() + 5_000), 100)).includes(id),
        {
          intervalMs: 10,
        },
      );
    } finally {
      await stores.close();
    }
    expect(await server!.stop('SIGKILL')).toBeNull(); // ended by the signal, not an exit code
    // The process that would have retried is gone: only the store remembers that the webhook is owed.
    expect(receiver.received).toHaveLength(1);

    server = await startServer(env);
    await receiver.waitFor(2, 30_000);
    const view = async () =>
      (
        (await (await fetch(`${server!.baseUrl}${BATCHES_URL}/${id}`, { headers: { 'X-API-Key': key } })).json()) as {
          webhook: { state: string; attempts: number };
        }
      ).webhook;
    await waitFor('the delivery to be on record', async () => (await view()).state === 'delivered', {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    // Where a duplicate would come from: a sweep an hour on, past every retry time, over the same store. It finds
    // nothing owed.
    const swept = createSqliteStores(dataDir);
    try {
      const anHourOn = new Date(Date.now() + 3_600_000);
      await deliverDueWebhooks({
        batches: swept.batches!,
        sender: new FetchWebhookSender({ allowPrivate: true }),
        clock: () => anHourOn,
      });
    } finally {
      await swept.close();
    }
    expect(receiver.received.map((m) => m.status)).toEqual([500, 204]);
    expect(await view()).toMatchObject({ state: 'delivered', attempts: 2 });

    const after = createSqliteStores(dataDir);
    try {
      const batch = (await after.batches!.getById(id))!;
      const secret = await after.batches!.webhookSecret(batch.accountId);
      for (const message of receiver.received) {
        expect(message.headers['webhook-id']).toBe(`msg_${id}`);
        expect(verifyWebhook(secret, message)).toBe(true);
      }
      expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({
        type: 'batch.completed',
        data: { id, status: 'completed', succeeded: 3 },
      });
      expect(await after.batches!.dueWebhooks(new Date(Date.now() + 3_600_000), 100)).not.toContain(id);
    } finally {
      await after.close();
    }
  }, 90_000);
});
