// Batches on the embedded default: accepted whole or refused whole, rendered in-process, every archived file decodes,
// counts exact.
import { describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { BACKGROUND_JOBS } from '../../src/services/background-jobs.js';
import { LastUsedBuffer } from '../../src/services/last-used-buffer.js';
import { useTestApp } from '../helpers/app.js';
import { BATCHES_URL, batchCaller, expectRowsReadByAll, postBatch, urlItems } from '../helpers/batches.js';

const t = useTestApp({ env: { RENDER_THREADS: '2' } });
const caller = (key: string) => batchCaller(t.app, key);
const CSV = { 'content-type': 'text/csv' };

async function usageOf(accountId: string) {
  return t.stores.meter.usage(accountId, periodOf(t.clock.now));
}

describe('a batch of 300 unique URLs on the embedded default', () => {
  it(
    'completes; every file in the archive decodes with zbar and ZXing; the manifest is complete; the quota moved ' +
      'by exactly the succeeded count',
    async () => {
      const { key, accountId } = await t.newCaller('pro');
      const items = urlItems(300, 'print-run', { size: 256 }).map((item, i) =>
        i % 3 === 0 ? { ...item, name: `ticket ${i}` } : item,
      );
      const res = await postBatch(t.app, key, { items });
      expect(res.statusCode, res.body).toBe(202);
      const accepted = JSON.parse(res.body) as { id: string; status: string; total: number };
      expect(res.headers.location).toBe(`${BATCHES_URL}/${accepted.id}`);
      expect(accepted).toMatchObject({ status: 'queued', total: 300 });

      const done = await caller(key).finished(accepted.id);
      expect(done).toMatchObject({ status: 'completed', total: 300, succeeded: 300, failed: 0, cancelled: 0 });
      expect(await usageOf(accountId)).toEqual({ requests: 300, qrs: 300 });

      await caller(key).withArchive(accepted.id, async ({ dir, files, manifest: [header], rows }) => {
        expect(header).toEqual(['index', 'name', 'file', 'status', 'error', 'codeId', 'shortUrl']);
        expect(rows.map((row) => Number(row[0]))).toEqual(Array.from({ length: 300 }, (_, i) => i));
        expect(rows[3]).toEqual(['3', 'ticket 3', 'ticket-3.png', 'succeeded', '', '', '']);
        expect(rows[299]).toEqual(['299', '', '299.png', 'succeeded', '', '', '']);
        const succeeded = rows.filter((row) => row[3] === 'succeeded');
        expect(files).toEqual([...succeeded.map((row) => row[2]!), 'manifest.csv'].sort());
        await expectRowsReadByAll(dir, succeeded, (index) => `https://example.com/print-run/${index}`);
      });
    },
  );
});

describe('acceptance is all or nothing', () => {
  it('lists every failing item by index and field, and counts nothing', async () => {
    const { key, accountId } = await t.newCaller('pro');
    const items = urlItems(5, 'bad');
    items[1] = { ...items[1]!, content: 'not a url' };
    items[3] = { ...items[3]!, type: 'fax' };
    items[4] = { ...items[4]!, darkColor: '#ffffff' };
    // Drawable content at a size too small for its code: refused here, not accepted and refunded later.
    items.push({ content: `https://example.com/${'x'.repeat(300)}`, type: 'url', outputFormat: 'png', size: 64 });
    const res = await postBatch(t.app, key, { items });
    expect(res.statusCode).toBe(400);
    const problem = JSON.parse(res.body) as { code: string; errors: Array<{ field: string }> };
    expect(problem.errors.map((e) => e.field).sort()).toEqual(['items.3.type']);
    // Shapes first (the schema), then content: with the type fixed, the content problems are all listed.
    items[3] = { ...items[3]!, type: 'url' };
    const second = JSON.parse((await postBatch(t.app, key, { items })).body) as {
      code: string;
      errors: Array<{ field: string }>;
    };
    expect(second.code).toBe('invalid_request');
    expect(second.errors.map((e) => e.field).sort()).toEqual(['items.1.content', 'items.4.darkColor', 'items.5.size']);
    expect(await usageOf(accountId)).toEqual({ requests: 0, qrs: 0 });
  });

  it('refuses a batch that does not fit the plan whole, saying how many requests and QRs remain', async () => {
    const { key, accountId } = await t.newCaller('free'); // 5 QRs a month
    const first = await postBatch(t.app, key, { items: urlItems(2, 'fit') });
    expect(first.statusCode).toBe(202);
    await caller(key).finished((JSON.parse(first.body) as { id: string }).id);
    const res = await postBatch(t.app, key, { items: urlItems(4, 'overflow') });
    expect(res.statusCode).toBe(429);
    const problem = JSON.parse(res.body) as { code: string; needed: unknown; remaining: unknown; detail: string };
    expect(problem).toMatchObject({
      code: 'qr_quota_exceeded',
      needed: { requests: 4, qrs: 4 },
      remaining: { requests: 498, qrs: 3 },
    });
    // The detail says when the quota comes back and which plan allows more.
    expect(problem.detail).toMatch(/; the quota resets at \S+Z; the Pro plan allows \d+ distinct QR codes a month$/);
    expect(await usageOf(accountId)).toEqual({ requests: 2, qrs: 2 });
  });

  it("refuses more items than the plan's batch size", async () => {
    const { key } = await t.newCaller('free');
    const res = await postBatch(t.app, key, { items: urlItems(101, 'big') });
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'batch_too_large', limit: 100 });
  });
});

describe('Idempotency-Key', () => {
  it(
    'a replay with the same key and body returns the same ' + 'batch and creates nothing new; another body is refused',
    async () => {
      const { key, accountId } = await t.newCaller('pro');
      const body = { items: urlItems(3, 'idem') };
      const first = await postBatch(t.app, key, body, { 'idempotency-key': 'order-42' });
      const replay = await postBatch(t.app, key, body, { 'idempotency-key': 'order-42' });
      expect(first.statusCode).toBe(202);
      expect(replay.statusCode).toBe(202);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      const id = (JSON.parse(first.body) as { id: string }).id;
      expect((JSON.parse(replay.body) as { id: string }).id).toBe(id);
      await caller(key).finished(id);
      const list = JSON.parse((await caller(key).get(BATCHES_URL)).body) as { items: unknown[] };
      expect(list.items).toHaveLength(1);
      expect(await usageOf(accountId)).toEqual({ requests: 3, qrs: 3 });

      const other = await postBatch(t.app, key, { items: urlItems(4, 'idem') }, { 'idempotency-key': 'order-42' });
      expect(other.statusCode).toBe(422);
      expect(JSON.parse(other.body)).toMatchObject({ code: 'idempotency_key_reused', batchId: id });
    },
  );
});

describe('CSV bodies', () => {
  it('renders a CSV upload and names a bad row by its line', async () => {
    const { key } = await t.newCaller('pro');
    const csv =
      'content,type,outputFormat,size,name\r\nhttps://example.com/a,url,png,128,first\r\n"WIFI:T:WPA;S:home;P:pass;;",wifi,webp,,second\r\n';
    const done = await caller(key).finished(await caller(key).start(csv, CSV));
    expect(done).toMatchObject({ status: 'completed', succeeded: 2 });

    const bad =
      'content,type,outputFormat\r\nhttps://example.com/a,url,png\r\nhello,fax,png\r\nhttps://example.com/c,url,gif\r\n';
    const refused = await postBatch(t.app, key, bad, CSV);
    expect(refused.statusCode).toBe(400);
    const fields = (JSON.parse(refused.body) as { errors: Array<{ field: string }> }).errors.map((e) => e.field).sort();
    expect(fields).toEqual(['line 3.type', 'line 4.outputFormat']);
  });
});

describe('cancel, list, delete', () => {
  it(
    'cancelling refunds every unrendered item; the list is newest first and paginated; a finished batch can be ' +
      'deleted',
    async () => {
      const { key, accountId } = await t.newCaller('pro');
      const small = JSON.parse((await postBatch(t.app, key, { items: urlItems(2, 'older') })).body) as { id: string };
      await caller(key).finished(small.id);
      const big = JSON.parse(
        (await postBatch(t.app, key, { items: urlItems(1_000, 'cancel', { size: 1024 }) })).body,
      ) as { id: string };
      const cancel = await caller(key).remove(big.id);
      expect(cancel.statusCode).toBe(200);
      const cancelled = await caller(key).finished(big.id);
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.cancelled).toBeGreaterThan(0);
      expect(cancelled.succeeded + cancelled.cancelled).toBe(1_000);
      expect((await usageOf(accountId)).requests).toBe(2 + cancelled.succeeded);

      type BatchPage = { items: Array<{ id: string }>; nextCursor: string | null };
      const page1 = JSON.parse((await caller(key).get(`${BATCHES_URL}?limit=1`)).body) as BatchPage;
      expect(page1.items.map((b) => b.id)).toEqual([big.id]);
      const page2 = JSON.parse(
        (await caller(key).get(`${BATCHES_URL}?limit=1&cursor=${page1.nextCursor}`)).body,
      ) as BatchPage;
      expect(page2.items.map((b) => b.id)).toEqual([small.id]);
      expect(page2.nextCursor).toBeNull();

      const del = await caller(key).remove(small.id);
      expect(del.statusCode).toBe(204);
      expect((await caller(key).get(`${BATCHES_URL}/${small.id}`)).statusCode).toBe(404);
    },
  );

  it("another account's batch is not found", async () => {
    const owner = await t.newCaller('pro');
    const stranger = await t.newCaller('pro');
    const id = (JSON.parse((await postBatch(t.app, owner.key, { items: urlItems(1, 'mine') })).body) as { id: string })
      .id;
    expect((await caller(stranger.key).get(`${BATCHES_URL}/${id}`)).statusCode).toBe(404);
    expect((await caller(stranger.key).get(`${BATCHES_URL}/${id}/archive`)).statusCode).toBe(404);
  });
});

describe('retention', () => {
  it('the batch-expiry job removes batches finished longer ago than the retention, files and all', async () => {
    const { key } = await t.newCaller('pro');
    const id = (JSON.parse((await postBatch(t.app, key, { items: urlItems(2, 'expire') })).body) as { id: string }).id;
    await caller(key).finished(id);
    const job = BACKGROUND_JOBS.find((j) => j.name === 'batch-expiry')!;
    const deps = { ...t.stores, lastUsed: new LastUsedBuffer(), batchRetentionMs: t.config.batchRetentionMs };
    expect(
      await job.run({ ...deps, clock: () => new Date(t.clock.now.getTime() + t.config.batchRetentionMs - 60_000) }),
    ).toBe(0);
    expect(await t.stores.batchResults!.open(id, 0)).toBeDefined();
    expect(
      await job.run({ ...deps, clock: () => new Date(t.clock.now.getTime() + t.config.batchRetentionMs + 60_000) }),
    ).toBeGreaterThanOrEqual(1);
    expect((await caller(key).get(`${BATCHES_URL}/${id}`)).statusCode).toBe(404);
    expect(await t.stores.batchResults!.open(id, 0)).toBeUndefined();
  });
});
