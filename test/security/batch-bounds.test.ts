// A batch post costs what the caller's plan allows before any of it is parsed: body limit by plan, streaming CSV
// stopping at the item limit, the key's burst.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BATCH_ENVELOPE_BYTES, BATCH_ITEM_BUDGET_BYTES } from '../../src/http/api/v1/batch-body.js';
import { generate, useTestApp } from '../helpers/app.js';
import { BATCHES_URL, postBatch, urlItems } from '../helpers/batches.js';

const t = useTestApp();

const FREE_LIMIT = BATCH_ENVELOPE_BYTES + 100 * BATCH_ITEM_BUDGET_BYTES;

function csvRows(count: number, from = 0): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `https://example.com/item/${String(from + i).padStart(6, '0')}/abcdefghijklmnopqrstuvwxyz,url,png,n${from + i}\n`,
  ).join('');
}

function postCsv(key: string, payload: string | Readable, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: BATCHES_URL,
    headers: { 'content-type': 'text/csv', 'x-api-key': key, ...headers },
    payload,
  });
}

function problem(res: { body: string }): {
  code: string;
  detail: string;
  limitBytes?: number;
  limit?: number;
  items?: number;
} {
  return JSON.parse(res.body) as { code: string; detail: string };
}

describe('the batch body limit is the plan’s, refused before parsing', () => {
  it(
    'refuses a free key’s CSV over its plan limit from Content-Length, before reading it (a body that would not ' +
      'even parse)',
    async () => {
      const { key } = await t.newCaller('free');
      // Larger than the free plan's limit, far under BATCH_BODY_LIMIT_BYTES, and not CSV at all: parsing it would
      // answer
      // 400.
      const body = '"' + 'x'.repeat(FREE_LIMIT + 10);
      const res = await postCsv(key, body);
      expect(res.statusCode, res.body).toBe(413);
      expect(problem(res)).toMatchObject({ code: 'batch_too_large', limitBytes: FREE_LIMIT, limit: 100 });
      expect(res.headers.connection).toBe('close');
    },
  );

  it(
    'refuses a chunked body (no Content-Length) once it ' +
      'passes the plan limit while streaming, JSON and CSV ' +
      'alike',
    async () => {
      const { key } = await t.newCaller('free');
      const chunks = (text: string) =>
        Readable.from(
          Array.from({ length: Math.ceil(text.length / 65_536) }, (_, i) => text.slice(i * 65_536, (i + 1) * 65_536)),
        );
      // Rows of 15 kB each: the byte limit is met after about 55 rows, long before the item limit.
      const wide = Array.from(
        { length: 80 },
        (_, i) => `https://example.com/${i}/${'x'.repeat(15_000)},url,png\n`,
      ).join('');
      const csv = await postCsv(key, chunks('content,type,outputFormat\n' + wide));
      expect(csv.statusCode, csv.body).toBe(413);
      expect(problem(csv).code).toBe('batch_too_large');
      const json = await t.app.inject({
        method: 'POST',
        url: BATCHES_URL,
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        payload: chunks(`{"items":[{"content":"${'x'.repeat(FREE_LIMIT)}"}]}`),
      });
      expect(json.statusCode, json.body).toBe(413);
      expect(problem(json).code).toBe('batch_too_large');
    },
  );

  it('takes a business key’s large body: its limit follows its plan', async () => {
    const { key } = await t.newCaller('business');
    const res = await postBatch(t.app, key, {
      items: urlItems(3, 'big-plan', { name: 'y'.repeat(200) }),
      webhookUrl: `https://example.com/${'p'.repeat(1500)}`,
    });
    expect(res.statusCode, res.body).toBe(202);
    const big = await postCsv(key, 'content,type,outputFormat,name\n' + csvRows(2_000));
    expect(big.statusCode, big.body).toBe(202);
    expect(JSON.parse(big.body)).toMatchObject({ total: 2_000 });
  });

  it('stops reading a CSV at the plan’s item limit: rows past it are never parsed', async () => {
    const { key } = await t.newCaller('free');
    // 101 good rows, then a line that cannot be read: a parser that read it all would answer 400.
    const res = await postCsv(key, 'content,type,outputFormat,name\n' + csvRows(101) + '"unterminated\n');
    expect(res.statusCode, res.body).toBe(413);
    expect(problem(res)).toMatchObject({ code: 'batch_too_large', limit: 100, items: 101 });
    expect(problem(res).detail).toContain('more than 100');
  });

  it('refuses more JSON items than the plan allows before validating any of them', async () => {
    const { key } = await t.newCaller('free');
    // Item 0 is invalid: validation first would answer 400.
    const items = [{ content: 'x', type: 'nope', outputFormat: 'png' }, ...urlItems(100, 'over')];
    const res = await postBatch(t.app, key, { items });
    expect(res.statusCode, res.body).toBe(413);
    expect(problem(res)).toMatchObject({ code: 'batch_too_large', limit: 100, items: 101 });
  });
});

describe('batch posts are held to the key’s burst', () => {
  it('counts each post, parsed or not, in the burst the key shares with generate', async () => {
    const { key } = await t.newCaller('free');
    // Nine generates and one empty batch fill the free plan's 10 a second (the test clock stands still).
    for (let i = 0; i < 9; i++)
      expect(
        (await generate(t.app, key, { content: 'https://example.com/b', type: 'url', outputFormat: 'png' })).statusCode,
      ).toBe(200);
    expect((await postBatch(t.app, key, { items: [] })).statusCode).toBe(400);
    const refused = await postBatch(t.app, key, { items: urlItems(1, 'burst') });
    expect(refused.statusCode, refused.body).toBe(429);
    expect(problem(refused).code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBe('1');
    t.clock.now = new Date(t.clock.now.getTime() + 1_001);
    expect((await postBatch(t.app, key, { items: urlItems(1, 'burst') })).statusCode).toBe(202);
  });
});
