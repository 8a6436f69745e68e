// Answers that used to be silent or wrong: manifest cells, batch error counts and plan refusals, query and path
// problems, Idempotency-Key.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvCell } from '../../src/domain/csv-cell.js';
import { useTestApp } from '../helpers/app.js';
import { BATCHES_URL, postBatch, unpackArchive, urlItems, waitForBatch } from '../helpers/batches.js';

const t = useTestApp();
const get = (key: string) => (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

describe('manifest.csv', () => {
  it('neutralises names a spreadsheet would run as formulas', async () => {
    const { key } = await t.newCaller('pro');
    const names = [
      '=HYPERLINK("http://x.example","click")',
      '+1+1',
      '-2',
      '@SUM(A1)',
      'plain',
      ' =SUM(A1)',
      '＝1+1',
      '\u200B@SUM(A1)',
    ];
    const res = await postBatch(t.app, key, {
      items: urlItems(names.length, 'manifest', { size: 128 }).map((item, i) => ({ ...item, name: names[i] })),
    });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = res.json() as { id: string };
    await waitForBatch(get(key), id);
    const archive = await t.app.inject({
      method: 'GET',
      url: `${BATCHES_URL}/${id}/archive`,
      headers: { 'x-api-key': key },
    });
    const unpacked = await unpackArchive(archive.rawPayload);
    try {
      const nameColumn = unpacked.manifest.slice(1).map((row) => row[1]);
      expect(nameColumn).toEqual([
        `'=HYPERLINK("http://x.example","click")`,
        "'+1+1",
        "'-2",
        "'@SUM(A1)",
        'plain',
        "' =SUM(A1)",
        "'＝1+1",
        "'\u200B@SUM(A1)",
      ]);
    } finally {
      await rm(join(unpacked.dir, '..'), { recursive: true, force: true });
    }
    expect(csvCell('\tx')).toBe(`"'\tx"`);
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell(-3)).toBe('"-3"');
  });

  it(
    'neutralises a formula behind leading whitespace, a control or zero-width character, and in full-width ' +
      'lookalikes',
    () => {
      const hidden = [
        '\n=1+1',
        ' =1+1',
        '\t=1+1',
        '\u0000=1+1',
        '\u200B=1+1',
        '\uFEFF=1+1',
        '\u00A0=1+1',
        '\u3000=1+1',
      ];
      const lookalikes = ['＝1+1', '＋1+1', '－1+1', '＠SUM(A1)', '﹦1+1', '﹢1', '﹣1', '﹫SUM(A1)', '−1+1'];
      for (const text of [...hidden, ...lookalikes]) expect(csvCell(text), JSON.stringify(text)).toBe(`"'${text}"`);
      for (const text of ['plain', 'a=b', 'x@example.com', '', '１２３', 'ｐｌａｉｎ', '😀 =1'])
        expect(csvCell(text), text).toBe(`"${text}"`);
      // One code point looked at, whatever comes after it.
      expect(csvCell(`${'x'.repeat(1_000_000)}=`)).toBe(`"${'x'.repeat(1_000_000)}="`);
    },
  );
});

describe('batch refusals say what was wrong', () => {
  it('answers 403 plan_upgrade_required naming the item, as generate does, for a format the plan lacks', async () => {
    const { key } = await t.newCaller('free');
    const items = [...urlItems(2, 'plan'), { content: 'https://example.com/svg', type: 'url', outputFormat: 'svg' }];
    const res = await postBatch(t.app, key, { items });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'plan_upgrade_required',
      plan: 'free',
      items: [2],
      errors: [{ field: 'items.2.outputFormat' }],
    });
    expect(res.json().detail).toContain('1 of 3 items');
  });

  it('counts every invalid item', async () => {
    const { key } = await t.newCaller('pro');
    const items = [
      { content: 'not a url', type: 'url', outputFormat: 'png' },
      ...urlItems(1, 'ok'),
      { content: 'also bad', type: 'url', outputFormat: 'png' },
    ];
    const res = await postBatch(t.app, key, { items });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().detail).toMatch(/^2 of 3 items are invalid/);
  });
});

describe('query and path values', () => {
  it('reports a present but invalid value as invalid, not as required', async () => {
    const { key } = await t.newCaller('free');
    const query = await get(key)(`${BATCHES_URL}?limit=abc`);
    expect(query.statusCode).toBe(400);
    expect(query.json().errors).toEqual([{ field: 'limit', detail: expect.not.stringMatching(/^required$/) }]);
    const path = await get(key)(`${BATCHES_URL}/${'x'.repeat(65)}`);
    expect(path.statusCode).toBe(400);
    expect(path.json().errors[0]).toMatchObject({ field: 'id' });
    expect(path.json().errors[0].detail).not.toBe('required');
  });
});

describe('Idempotency-Key', () => {
  it('returns the same batch for the same body with its keys in another order', async () => {
    const { key } = await t.newCaller('pro');
    const first = await postBatch(
      t.app,
      key,
      { items: [{ content: 'https://example.com/i', type: 'url', outputFormat: 'png', size: 128 }] },
      { 'idempotency-key': 'order-1' },
    );
    expect(first.statusCode, first.body).toBe(202);
    const again = await postBatch(
      t.app,
      key,
      `{"items":[{"size":128,"outputFormat":"png","type":"url","content":"https://example.com/i"}]}`,
      {
        'idempotency-key': 'order-1',
      },
    );
    expect(again.statusCode, again.body).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    const other = await postBatch(t.app, key, { items: urlItems(1, 'other') }, { 'idempotency-key': 'order-1' });
    expect(other.statusCode).toBe(422);
  });

  it('refuses an empty key and one of 256 characters', async () => {
    const { key } = await t.newCaller('pro');
    for (const value of ['', 'k'.repeat(256)]) {
      const res = await postBatch(t.app, key, { items: urlItems(1, 'empty-key') }, { 'idempotency-key': value });
      expect(res.statusCode, `${JSON.stringify(value)}: ${res.body}`).toBe(400);
      expect(res.json().errors[0].field).toMatch(/idempotency-key/i);
    }
  });
});
