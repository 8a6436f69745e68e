// Batch items that make dynamic codes: made once at acceptance within the plan, listed, drawn with their short URLs,
// named in the manifest.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import type { DynamicCodeStore } from '../../src/domain/ports/dynamic-code-store.js';
import { acceptBatch } from '../../src/services/batches/accept-batch.js';
import { useTestApp } from '../helpers/app.js';
import { batchCaller, postBatch, urlItems } from '../helpers/batches.js';
import { decodePngFiles, readByAll } from '../helpers/decode.js';

const t = useTestApp({ env: { RENDER_THREADS: '2' } });
const CODES_URL = '/api/v1/QRManager/codes';

interface CodeJson {
  id: string;
  slug: string;
  shortUrl: string;
  target: string;
  name: string | null;
  utm: unknown;
}

const caller = (key: string) => batchCaller(t.app, key);

async function codesOf(key: string): Promise<CodeJson[]> {
  const res = await caller(key).get(`${CODES_URL}?limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return (JSON.parse(res.body) as { items: CodeJson[] }).items;
}

async function usageOf(accountId: string) {
  return t.stores.meter.usage(accountId, periodOf(t.clock.now));
}

function dynamicItems(count: number, tag: string): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => ({
    outputFormat: 'png',
    size: 256,
    name: `poster ${i}`,
    dynamic: { target: `https://example.com/${tag}/${i}`, name: `${tag} poster ${i}` },
  }));
}

describe('a batch of dynamic items', () => {
  it(
    'makes one code per item, listed with its name; each image reads as its short URL with every reader; the ' +
      'manifest names id and short URL; a scan redirects',
    async () => {
      const { key, accountId } = await t.newCaller('pro');
      const items = [
        ...dynamicItems(20, 'spring'),
        // Static items beside them keep their content, and their manifest cells for a code stay empty.
        ...urlItems(2, 'static', { size: 256 }),
      ];
      (items[3]!.dynamic as Record<string, unknown>).utm = { source: 'poster', medium: 'print', campaign: 'spring' };
      const id = await caller(key).start({ items });
      // The codes exist from acceptance on, before any image is drawn.
      const codes = await codesOf(key);
      expect(codes).toHaveLength(20);
      expect(codes.map((code) => code.name).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `spring poster ${i}`).sort(),
      );

      expect(await caller(key).finished(id)).toMatchObject({
        status: 'completed',
        total: 22,
        succeeded: 22,
        failed: 0,
      });
      // Metered as 22 generations (one request and one new QR code per item), as static items are.
      expect(await usageOf(accountId)).toEqual({ requests: 22, qrs: 22 });

      const byId = new Map(codes.map((code) => [code.id, code]));
      await caller(key).withArchive(id, async (archive) => {
        expect(archive.manifest[0]).toEqual(['index', 'name', 'file', 'status', 'error', 'codeId', 'shortUrl']);
        const dynamicRows = archive.rows.slice(0, 20);
        // Each row names a distinct code of the account, with that code's shortUrl and target.
        expect(new Set(dynamicRows.map((row) => row[5])).size).toBe(20);
        for (const [i, row] of dynamicRows.entries()) {
          const code = byId.get(row[5]!);
          expect(code, `row ${i} names code ${row[5]}`).toBeDefined();
          expect([row[0], row[1], row[2], row[3], row[6]]).toEqual([
            String(i),
            `poster ${i}`,
            `poster-${i}.png`,
            'succeeded',
            code!.shortUrl,
          ]);
          expect(code!.target).toBe(`https://example.com/spring/${i}`);
        }
        expect(archive.rows.slice(20).map((row) => row.slice(3))).toEqual([
          ['succeeded', '', '', ''],
          ['succeeded', '', '', ''],
        ]);

        const decoded = await decodePngFiles(dynamicRows.map((row) => join(archive.dir, row[2]!)));
        expect(decoded).toEqual(dynamicRows.map((row) => readByAll(row[6]!)));
      });

      // A scan of a short URL goes to its code's target (UTM appended on the one that has it).
      for (const i of [0, 3]) {
        const code = codes.find((c) => c.name === `spring poster ${i}`)!;
        const scan = await t.app.inject({
          method: 'GET',
          url: new URL(code.shortUrl).pathname,
          headers: { 'user-agent': 'Mozilla/5.0 (iPhone)' },
        });
        expect(scan.statusCode).toBe(302);
        const utm = i === 3 ? '?utm_source=poster&utm_medium=print&utm_campaign=spring' : '';
        expect(scan.headers.location).toBe(`https://example.com/spring/${i}${utm}`);
      }
    },
  );

  it('an Idempotency-Key retry answers the same batch and makes no more codes', async () => {
    const { key } = await t.newCaller('pro');
    const body = { items: dynamicItems(5, 'retry') };
    const first = await postBatch(t.app, key, body, { 'idempotency-key': 'print-run-1' });
    expect(first.statusCode, first.body).toBe(202);
    const again = await postBatch(t.app, key, body, { 'idempotency-key': 'print-run-1' });
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(JSON.parse(again.body).id).toBe(JSON.parse(first.body).id);
    expect(await codesOf(key)).toHaveLength(5);
  });

  it('cancelling (or deleting) the batch leaves its codes: they were made at acceptance', async () => {
    const { key } = await t.newCaller('pro');
    const id = await caller(key).start({ items: dynamicItems(6, 'cancel') });
    // 200: cancelled while queued or running; 204: it had finished already and was deleted. Either way the codes stay.
    const gone = await caller(key).remove(id);
    expect([200, 204]).toContain(gone.statusCode);
    expect((await codesOf(key)).map((code) => code.target).sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => `https://example.com/cancel/${i}`).sort(),
    );
  });

  it('takes the dynamic fields from CSV columns dynamic.target and dynamic.name', async () => {
    const { key } = await t.newCaller('pro');
    const csv =
      'outputFormat,name,dynamic.target,dynamic.name,content,type\r\npng,a,https://example.com/csv/a,CSV code a,,\r\npng,b,https://example.com/csv/b,,,\r\npng,c,,,https://example.com/static,url\r\n';
    const id = await caller(key).start(csv, { 'content-type': 'text/csv' });
    const codes = await codesOf(key);
    expect(codes.map((code) => [code.target, code.name]).sort()).toEqual([
      ['https://example.com/csv/a', 'CSV code a'],
      ['https://example.com/csv/b', null],
    ]);
    await caller(key).finished(id);
    await caller(key).withArchive(id, async ({ rows }) => {
      const shortUrlOf = new Map(codes.map((code) => [code.id, code.shortUrl]));
      expect(rows.map((row) => [row[1], row[6]])).toEqual([
        ['a', shortUrlOf.get(rows[0]![5]!)],
        ['b', shortUrlOf.get(rows[1]![5]!)],
        ['c', ''],
      ]);
    });
  });
});

describe('a drawn slug found taken', () => {
  it(
    'gives the reservation back and draws again: the ' + 'codes, the items and the quota count the batch once',
    async () => {
      const { accountId } = await t.newCaller('pro');
      const real = t.stores.codes;
      const calls: string[][] = [];
      // The real store, but its first batch creation answers as if a slug had been taken meanwhile.
      const codes = new Proxy(real, {
        get(target, prop) {
          if (prop === 'createManyWithinLimit')
            return async (inputs: Parameters<DynamicCodeStore['createManyWithinLimit']>[0], max: number) => {
              calls.push(inputs.map((input) => input.slug));
              return calls.length === 1 ? 'slug_taken' : real.createManyWithinLimit(inputs, max);
            };
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const queued: string[] = [];
      const accepted = await acceptBatch(
        {
          batches: t.stores.batches!,
          meter: t.stores.meter,
          queue: { enqueue: async (batch) => void queued.push(batch.id), rendering: async () => false },
          clock: () => t.clock.now,
          plans: t.plans,
          renderer: { assertDrawable: () => {} },
          logos: t.stores.logos,
          designs: t.stores.designs,
          codes,
        },
        { accountId, plan: 'pro' },
        {
          items: dynamicItems(3, 'taken') as never,
          requestHash: '',
          label: (i) => `items.${i}`,
          shortUrlBase: 'https://qr.example.com',
        },
      );
      expect(calls).toHaveLength(2);
      expect(calls[1]!.some((slug) => calls[0]!.includes(slug))).toBe(false);
      expect(queued).toEqual([accepted.batch.id]);
      expect(await usageOf(accountId)).toEqual({ requests: 3, qrs: 3 });
      const made = await real.list(accountId, { limit: 10 });
      expect(made.map((code) => code.slug).sort()).toEqual([...calls[1]!].sort());
      const items = await t.stores.batches!.items(accepted.batch.id, 0, 3);
      const slugOf = new Map(made.map((code) => [code.id, code.slug]));
      expect(items.map((item) => item.spec.payload)).toEqual(
        items.map((item) => `https://qr.example.com/r/${slugOf.get(item.codeId!)}`),
      );
    },
  );
});

describe('a batch of dynamic items is refused whole', () => {
  it('names each item whose dynamic fields, content or type are wrong, and makes and counts nothing', async () => {
    const { key, accountId } = await t.newCaller('pro');
    const items = dynamicItems(6, 'bad');
    items[1] = { ...items[1]!, content: 'https://example.com/both' };
    items[2] = { ...items[2]!, type: 'text' };
    items[3] = { ...items[3]!, dynamic: { target: 'javascript:alert(1)' } };
    items[4] = { outputFormat: 'png' };
    items[5] = { ...items[5]!, type: 'url' };
    const res = await postBatch(t.app, key, { items });
    expect(res.statusCode, res.body).toBe(400);
    const problem = JSON.parse(res.body) as { code: string; errors: Array<{ field: string }> };
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e) => e.field).sort()).toEqual([
      'items.1.content',
      'items.2.type',
      'items.3.dynamic.target',
      'items.4.content',
      'items.4.type',
    ]);
    expect(await codesOf(key)).toEqual([]);
    expect(await usageOf(accountId)).toEqual({ requests: 0, qrs: 0 });

    // A password is set per code afterwards: in a batch item it is refused by name, never ignored.
    const withPassword = await postBatch(t.app, key, {
      items: [{ outputFormat: 'png', dynamic: { target: 'https://example.com/', password: 'secret-1' } }],
    });
    expect(withPassword.statusCode).toBe(400);
    expect(withPassword.body).toContain('password');
  });

  it(
    "past the plan's dynamic-code limit: 409 code_limit_reached for the whole batch, nothing made or counted; " +
      'one that fits is accepted',
    async () => {
      // The free plan holds 5 dynamic codes.
      const { key, accountId } = await t.newCaller('free');
      for (const i of [0, 1]) {
        const made = await t.app.inject({
          method: 'POST',
          url: CODES_URL,
          headers: { 'x-api-key': key },
          payload: { target: `https://example.com/own/${i}` },
        });
        expect(made.statusCode).toBe(201);
      }
      const res = await postBatch(t.app, key, { items: dynamicItems(4, 'over') });
      expect(res.statusCode, res.body).toBe(409);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'code_limit_reached', limit: 5, held: 2, needed: 4 });
      expect(await codesOf(key)).toHaveLength(2);
      expect(await usageOf(accountId)).toEqual({ requests: 0, qrs: 0 });

      const fits = await postBatch(t.app, key, { items: dynamicItems(3, 'fits') });
      expect(fits.statusCode, fits.body).toBe(202);
      expect(await codesOf(key)).toHaveLength(5);
    },
  );
});
