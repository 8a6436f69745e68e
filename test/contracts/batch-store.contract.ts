// Contract suite for the BatchStore port: atomic create with idempotency keys, items moved once, exact counts, cancel,
// retention and webhook claims.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Batch, BatchItem } from '../../src/domain/batches/batch.js';
import { newBatchId } from '../../src/domain/batches/batch-id.js';
import type { BatchStore, FinishedItem } from '../../src/domain/ports/batch-store.js';

const T0 = new Date('2026-05-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function newBatch(accountId: string, total: number, extra: Partial<Batch> = {}): Batch {
  return {
    id: newBatchId(T0),
    accountId,
    plan: 'pro',
    status: 'queued',
    total,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    period: '2026-05',
    createdAt: T0,
    startedAt: undefined,
    finishedAt: undefined,
    webhookUrl: undefined,
    idempotencyKey: undefined,
    requestHash: 'a'.repeat(64),
    ...extra,
  };
}

function itemsOf(total: number): BatchItem[] {
  return Array.from({ length: total }, (_, index) => ({
    index,
    name: index % 2 === 0 ? `label-${index}` : undefined,
    file: index % 2 === 0 ? `label-${index}.png` : `${index}.png`,
    type: 'url',
    fingerprint: `fp-${index}`,
    spec: {
      payload: `https://example.com/${index}`,
      format: 'png',
      size: 256,
      margin: 4,
      errorCorrection: 'M',
      darkColor: '#000000ff',
      lightColor: '#ffffffff',
    },
  }));
}

const succeeded = (...indexes: number[]): FinishedItem[] => indexes.map((index) => ({ index, state: 'succeeded' }));
const account = () => `acc_${randomUUID()}`;

export function batchStoreContract(adapterName: string, make: () => Promise<BatchStore>): void {
  describe(`BatchStore contract: ${adapterName}`, () => {
    it('keeps the dynamic code an item made (codeId) with the item, through its rendering', async () => {
      const store = await make();
      const batch = newBatch(account(), 3);
      const items = itemsOf(3).map((item, index) => (index === 1 ? item : { ...item, codeId: `dyn_code${index}` }));
      await store.create(batch, items);
      await store.finishItems(batch.id, succeeded(0, 1), at(1));
      const read = await store.items(batch.id, 0, 3);
      expect(read.map((item) => [item.index, item.state, item.codeId])).toEqual([
        [0, 'succeeded', 'dyn_code0'],
        [1, 'succeeded', undefined],
        [2, 'pending', 'dyn_code2'],
      ]);
    });

    it('stores a batch with its items, readable by its account and by id, never by another account', async () => {
      const store = await make();
      const owner = account();
      const batch = newBatch(owner, 5, { webhookUrl: 'https://hooks.example.com/qr' });
      expect(await store.create(batch, itemsOf(5))).toEqual({ batch, created: true });
      // Read back, a batch with a webhookUrl says where its webhook stands.
      const stored = { ...batch, webhook: { state: 'pending', attempts: 0 } };
      expect(await store.get(owner, batch.id)).toEqual(stored);
      expect(await store.getById(batch.id)).toEqual(stored);
      expect(await store.get(account(), batch.id)).toBeUndefined();
      const items = await store.items(batch.id, 1, 4);
      expect(items.map((item) => item.index)).toEqual([1, 2, 3]);
      expect(items[0]).toEqual({ ...itemsOf(5)[1], state: 'pending', errorCode: undefined });
      expect(items[1]!.name).toBe('label-2');
      expect(await store.items(batch.id, 5, 10)).toEqual([]);
    });

    it(
      'creates nothing for an idempotency key the ' + 'account already used, and answers with the first ' + 'batch',
      async () => {
        const store = await make();
        const owner = account();
        const first = newBatch(owner, 3, { idempotencyKey: 'order-77' });
        await store.create(first, itemsOf(3));
        const replay = newBatch(owner, 4, { idempotencyKey: 'order-77' });
        expect(await store.create(replay, itemsOf(4))).toEqual({ batch: first, created: false });
        expect(await store.getById(replay.id)).toBeUndefined();
        expect(await store.items(replay.id, 0, 10)).toEqual([]);
        expect(await store.byIdempotencyKey(owner, 'order-77')).toEqual(first);
        // Keys belong to their account: the same key elsewhere is a new batch.
        const elsewhere = newBatch(account(), 2, { idempotencyKey: 'order-77' });
        expect((await store.create(elsewhere, itemsOf(2))).created).toBe(true);
        expect(await store.inFlight(owner)).toBe(1);
      },
    );

    it('lists an account’s batches newest first, a page at a time', async () => {
      const store = await make();
      const owner = account();
      const made: Batch[] = [];
      for (let i = 0; i < 5; i++) {
        const batch = newBatch(owner, 1);
        await store.create(batch, itemsOf(1));
        made.push(batch);
      }
      await store.create(newBatch(account(), 1), itemsOf(1));
      const first = await store.list(owner, { limit: 2 });
      expect(first.batches.map((b) => b.id)).toEqual([made[4]!.id, made[3]!.id]);
      const second = await store.list(owner, { limit: 2, before: first.next });
      expect(second.batches.map((b) => b.id)).toEqual([made[2]!.id, made[1]!.id]);
      const last = await store.list(owner, { limit: 2, before: second.next });
      expect(last.batches.map((b) => b.id)).toEqual([made[0]!.id]);
      expect(last.next).toBeUndefined();
    });

    it('moves each item out of pending once, counts exactly, and finishes the batch with its last item', async () => {
      const store = await make();
      const owner = account();
      const batch = newBatch(owner, 4);
      await store.create(batch, itemsOf(4));
      await store.markRunning(batch.id, at(1));
      await store.markRunning(batch.id, at(2));
      expect(await store.getById(batch.id)).toMatchObject({ status: 'running', startedAt: at(1) });

      expect(
        (
          await store.finishItems(
            batch.id,
            [...succeeded(0), { index: 1, state: 'failed', errorCode: 'content_too_long' }],
            at(3),
          )
        ).moved,
      ).toBe(2);
      // The same group again (a chunk re-run after a crash) moves and counts nothing.
      const again = await store.finishItems(
        batch.id,
        [...succeeded(0), { index: 1, state: 'failed', errorCode: 'content_too_long' }],
        at(4),
      );
      expect(again.moved).toBe(0);
      expect(again.batch).toMatchObject({ status: 'running', succeeded: 1, failed: 1 });
      expect(await store.inFlight(owner)).toBe(1);

      const last = await store.finishItems(batch.id, succeeded(2, 3), at(5));
      expect(last.moved).toBe(2);
      expect(last.batch).toMatchObject({ status: 'completed', succeeded: 3, failed: 1, finishedAt: at(5) });
      expect(await store.getById(batch.id)).toMatchObject({
        status: 'completed',
        succeeded: 3,
        failed: 1,
        finishedAt: at(5),
      });
      expect((await store.items(batch.id, 0, 4)).map((item) => [item.state, item.errorCode])).toEqual([
        ['succeeded', undefined],
        ['failed', 'content_too_long'],
        ['succeeded', undefined],
        ['succeeded', undefined],
      ]);
      expect(await store.inFlight(owner)).toBe(0);
      expect(await store.unfinished(100)).not.toContain(batch.id);
    });

    it('counts overlapping groups finished at the same time exactly once', async () => {
      const store = await make();
      const batch = newBatch(account(), 30);
      await store.create(batch, itemsOf(30));
      const groups = [
        succeeded(...Array.from({ length: 20 }, (_, i) => i)),
        succeeded(...Array.from({ length: 20 }, (_, i) => i + 10)),
      ];
      const outcomes = await Promise.all(groups.map((group) => store.finishItems(batch.id, group, at(1))));
      expect(outcomes[0]!.moved + outcomes[1]!.moved).toBe(30);
      expect(await store.getById(batch.id)).toMatchObject({ status: 'completed', succeeded: 30, failed: 0 });
    });

    it('calls a batch failed when none of its items rendered', async () => {
      const store = await make();
      const batch = newBatch(account(), 2);
      await store.create(batch, itemsOf(2));
      const outcome = await store.finishItems(
        batch.id,
        [0, 1].map((index) => ({ index, state: 'failed' as const, errorCode: 'render_failed' })),
        at(1),
      );
      expect(outcome.batch).toMatchObject({ status: 'failed', failed: 2 });
    });

    it('cancels the pending items once, hands them back for refunds, and lets no later finish count', async () => {
      const store = await make();
      const owner = account();
      const batch = newBatch(owner, 5);
      await store.create(batch, itemsOf(5));
      await store.finishItems(batch.id, succeeded(0, 1), at(1));
      expect(await store.cancel(account(), batch.id, at(2))).toBeUndefined();
      const outcome = (await store.cancel(owner, batch.id, at(2)))!;
      expect(outcome.cancelled.map((item) => [item.index, item.fingerprint])).toEqual([
        [2, 'fp-2'],
        [3, 'fp-3'],
        [4, 'fp-4'],
      ]);
      expect(outcome.batch).toMatchObject({ status: 'cancelled', succeeded: 2, cancelled: 3, finishedAt: at(2) });
      expect((await store.cancel(owner, batch.id, at(3)))!.cancelled).toEqual([]);
      expect((await store.finishItems(batch.id, succeeded(2, 3), at(4))).moved).toBe(0);
      expect(await store.getById(batch.id)).toMatchObject({ status: 'cancelled', succeeded: 2, cancelled: 3 });
    });

    it(
      'resumes unfinished batches oldest first, expires ' + 'finished ones, and removes a batch with its items',
      async () => {
        const store = await make();
        const owner = account();
        const older = newBatch(owner, 1);
        const newer = newBatch(owner, 1);
        await store.create(older, itemsOf(1));
        await store.create(newer, itemsOf(1));
        const unfinished = await store.unfinished(10_000);
        expect(unfinished.indexOf(older.id)).toBeLessThan(unfinished.indexOf(newer.id));
        expect(unfinished.indexOf(older.id)).toBeGreaterThanOrEqual(0);

        await store.finishItems(older.id, succeeded(0), at(10));
        expect(await store.finishedBefore(at(11), 10_000)).toContain(older.id);
        expect(await store.finishedBefore(at(10), 10_000)).not.toContain(older.id);
        expect(await store.remove(older.id)).toBe(true);
        expect(await store.remove(older.id)).toBe(false);
        expect(await store.getById(older.id)).toBeUndefined();
        expect(await store.items(older.id, 0, 1)).toEqual([]);
        expect(await store.getById(newer.id)).toBeDefined();
      },
    );

    it('makes one webhook signing secret per account, the same every time', async () => {
      const store = await make();
      const owner = account();
      const secret = await store.webhookSecret(owner);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(await store.webhookSecret(owner)).toBe(secret);
      expect(await store.webhookSecret(account())).not.toBe(secret);
    });

    it(
      'rotates the webhook secret: the replaced one signs ' + 'beside it until its overlap ends, an older one no more',
      async () => {
        const store = await make();
        const owner = account();
        const first = await store.webhookSecret(owner);
        expect(await store.webhookSigningSecrets(owner, at(0))).toEqual([first]);
        const second = await store.rotateWebhookSecret(owner, at(100));
        expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(await store.webhookSecret(owner)).toBe(second);
        expect(await store.webhookSigningSecrets(owner, at(99))).toEqual([second, first]);
        expect(await store.webhookSigningSecrets(owner, at(100))).toEqual([second]);
        const third = await store.rotateWebhookSecret(owner, at(200));
        expect(await store.webhookSigningSecrets(owner, at(50))).toEqual([third, second]);
        expect(await store.webhookSigningSecrets(account(), at(0))).toHaveLength(1);
      },
    );

    it(
      'makes the webhook due when the batch finishes, hands ' + 'each attempt to one claimant, and keeps the schedule',
      async () => {
        const store = await make();
        const withHook = newBatch(account(), 1, { webhookUrl: 'https://hooks.example.com/qr' });
        const withoutHook = newBatch(account(), 1);
        await store.create(withHook, itemsOf(1));
        await store.create(withoutHook, itemsOf(1));
        expect(await store.claimWebhook(withHook.id, at(100), 60_000)).toBeUndefined(); // not finished yet
        await store.finishItems(withHook.id, succeeded(0), at(10));
        await store.finishItems(withoutHook.id, succeeded(0), at(10));
        expect(await store.dueWebhooks(at(9), 10_000)).not.toContain(withHook.id);
        const due = await store.dueWebhooks(at(10), 10_000);
        expect(due).toContain(withHook.id);
        expect(due).not.toContain(withoutHook.id);

        // Two processes race for the attempt: one gets it, and it stays hidden for the lease.
        const claims = await Promise.all([
          store.claimWebhook(withHook.id, at(11), 60_000),
          store.claimWebhook(withHook.id, at(11), 60_000),
        ]);
        const won = claims.filter((claim) => claim !== undefined);
        expect(won).toHaveLength(1);
        expect(won[0]).toMatchObject({
          attempts: 0,
          batch: { id: withHook.id, status: 'completed', webhookUrl: 'https://hooks.example.com/qr' },
        });
        expect(await store.dueWebhooks(at(70), 10_000)).not.toContain(withHook.id);
        // A claimant that died: the lease runs out and the attempt is anyone's again.
        const retaken = await store.claimWebhook(withHook.id, at(72), 60_000);
        expect(retaken?.attempts).toBe(0);

        await store.settleWebhook(withHook.id, {
          attempts: 1,
          delivered: false,
          retryAt: at(200),
          error: 'the target answered HTTP 500',
        });
        expect((await store.getById(withHook.id))?.webhook).toEqual({
          state: 'pending',
          attempts: 1,
          lastError: 'the target answered HTTP 500',
        });
        expect(await store.claimWebhook(withHook.id, at(199), 60_000)).toBeUndefined();
        expect(await store.dueWebhooks(at(200), 10_000)).toContain(withHook.id);
        expect((await store.claimWebhook(withHook.id, at(200), 60_000))?.attempts).toBe(1);
        await store.settleWebhook(withHook.id, { attempts: 2, delivered: true });
        expect((await store.getById(withHook.id))?.webhook).toEqual({ state: 'delivered', attempts: 2 });
        expect(await store.dueWebhooks(at(100_000), 10_000)).not.toContain(withHook.id);
        expect(await store.claimWebhook(withHook.id, at(100_000), 60_000)).toBeUndefined();
      },
    );

    it('stops asking once delivery is given up', async () => {
      const store = await make();
      const batch = newBatch(account(), 1, { webhookUrl: 'https://hooks.example.com/qr' });
      await store.create(batch, itemsOf(1));
      await store.finishItems(batch.id, succeeded(0), at(0));
      await store.claimWebhook(batch.id, at(1), 60_000);
      await store.settleWebhook(batch.id, { attempts: 6, delivered: false, error: 'fetch failed' });
      expect((await store.getById(batch.id))?.webhook).toEqual({
        state: 'failed',
        attempts: 6,
        lastError: 'fetch failed',
      });
      expect(await store.dueWebhooks(at(100_000), 10_000)).not.toContain(batch.id);
      expect(await store.claimWebhook(batch.id, at(100_000), 60_000)).toBeUndefined();
    });

    it('keeps a refused target refused, with its reason, and makes a cancelled batch’s webhook due', async () => {
      const store = await make();
      const refused = newBatch(account(), 1, { webhookUrl: 'http://10.0.0.1/hook' });
      await store.create(refused, itemsOf(1));
      await store.finishItems(refused.id, succeeded(0), at(0));
      await store.claimWebhook(refused.id, at(1), 60_000);
      await store.settleWebhook(refused.id, { attempts: 1, delivered: false, refused: true, error: 'private address' });
      expect((await store.getById(refused.id))?.webhook).toEqual({
        state: 'refused',
        attempts: 1,
        lastError: 'private address',
      });
      expect(await store.dueWebhooks(at(100_000), 10_000)).not.toContain(refused.id);

      const owner = account();
      const cancelled = newBatch(owner, 3, { webhookUrl: 'https://hooks.example.com/qr' });
      await store.create(cancelled, itemsOf(3));
      await store.cancel(owner, cancelled.id, at(5));
      expect(await store.dueWebhooks(at(5), 10_000)).toContain(cancelled.id);
      expect((await store.claimWebhook(cancelled.id, at(6), 60_000))?.batch.status).toBe('cancelled');
    });
  });
}
