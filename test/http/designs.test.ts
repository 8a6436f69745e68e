// Saved designs: CRUD per account within the plan's count, checked when saved, and the same image as the same fields
// inline wherever `design` is accepted.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate, useTestApp } from '../helpers/app.js';
import { acceptedBatchId, getAs, postBatch, waitForBatch, withArchive } from '../helpers/batches.js';
import { codesApi } from '../helpers/codes.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';
import { newSigningKey, signedUrl } from '../helpers/signed-urls.js';

const DESIGNS_URL = '/api/v1/QRManager/designs';
const t = useTestApp();

function designs(key: string) {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  return {
    create: (body: unknown) =>
      t.app.inject({ method: 'POST', url: DESIGNS_URL, headers, payload: JSON.stringify(body) }),
    list: () => t.app.inject({ method: 'GET', url: DESIGNS_URL, headers: { 'x-api-key': key } }),
    get: (id: string) => t.app.inject({ method: 'GET', url: `${DESIGNS_URL}/${id}`, headers: { 'x-api-key': key } }),
    patch: (id: string, body: unknown) =>
      t.app.inject({ method: 'PATCH', url: `${DESIGNS_URL}/${id}`, headers, payload: JSON.stringify(body) }),
    delete: (id: string) =>
      t.app.inject({ method: 'DELETE', url: `${DESIGNS_URL}/${id}`, headers: { 'x-api-key': key } }),
  };
}

const PLAIN = { size: 330, margin: 2, errorCorrection: 'Q', darkColor: '#1f3a5f', lightColor: '#fffaf0' } as const;

describe('designs API', () => {
  it('creates, lists, reads, renames, replaces and deletes a design, only in its own account', async () => {
    const { key } = await t.newCaller('free');
    const api = designs(key);
    const created = await api.create({ name: 'Brand', options: PLAIN });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    expect(id).toMatch(/^des_[A-Za-z0-9_-]{20}$/);
    expect(created.headers.location).toBe(`${DESIGNS_URL}/${id}`);
    expect(created.json()).toMatchObject({ name: 'Brand', options: PLAIN });
    expect((await api.list()).json().items.map((d: { id: string }) => d.id)).toEqual([id]);
    expect((await api.patch(id, { name: 'Brand 2' })).json()).toMatchObject({ name: 'Brand 2', options: PLAIN });
    expect((await api.patch(id, { options: { darkColor: '#000000' } })).json().options).toEqual({
      darkColor: '#000000',
    });
    expect((await api.get(id)).json()).toMatchObject({ name: 'Brand 2', options: { darkColor: '#000000' } });
    const other = designs((await t.newCaller('free')).key);
    expect((await other.get(id)).statusCode).toBe(404);
    expect((await other.delete(id)).statusCode).toBe(404);
    expect(
      (
        await generate(t.app, (await t.newCaller('free')).key, {
          content: 'x',
          type: 'text',
          outputFormat: 'png',
          design: id,
        })
      ).json(),
    ).toMatchObject({
      code: 'invalid_request',
      errors: [{ field: 'design' }],
    });
    expect((await api.delete(id)).statusCode).toBe(204);
    expect((await api.get(id)).statusCode).toBe(404);
  });

  it("holds an account to its plan's designs figure", async () => {
    const { key } = await t.newCaller('free');
    const api = designs(key);
    for (let i = 0; i < t.plans.get('free').designs!; i++)
      expect((await api.create({ name: `d${i}`, options: {} })).statusCode).toBe(201);
    const over = await api.create({ name: 'one too many', options: {} });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toMatchObject({ code: 'design_limit_reached', limit: t.plans.get('free').designs });
  });

  it(
    'refuses a design that would not scan, or whose ' +
      'colours cannot be read, naming the field, and saves ' +
      'nothing',
    async () => {
      const { key } = await t.newCaller('pro');
      const api = designs(key);
      const logo = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id as string;
      const unscannable = await api.create({
        name: 'big logo',
        options: { errorCorrection: 'L', logo: { id: logo, scale: 0.4 } },
      });
      expect(unscannable.statusCode).toBe(422);
      expect(unscannable.json().code).toBe('unscannable_design');
      const faint = await api.create({ name: 'faint', options: { darkColor: '#dddddd', lightColor: '#ffffff' } });
      expect(faint.statusCode).toBe(400);
      expect(faint.json().errors[0].field).toBe('options.darkColor');
      const foreignLogo = await api.create({ name: 'stolen', options: { logo: { id: 'logo_nope' } } });
      expect(foreignLogo.json().errors[0].field).toBe('options.logo.id');
      expect((await api.list()).json().items).toEqual([]);
    },
  );
});

describe('design: "des_…" gives the same image as the same fields inline', () => {
  it(
    'in generate, a signed URL, a batch (JSON items and a CSV column) and a dynamic code image; request fields ' +
      'override',
    async () => {
      const { key } = await t.newCaller('pro');
      const id = (await designs(key).create({ name: 'plain', options: PLAIN })).json().id as string;
      const content = 'https://example.com/designed';
      const inline = await generate(t.app, key, { content, type: 'url', outputFormat: 'png', ...PLAIN });
      expect(inline.statusCode).toBe(200);
      const viaDesign = await generate(t.app, key, { content, type: 'url', outputFormat: 'png', design: id });
      expect(viaDesign.rawPayload.equals(inline.rawPayload)).toBe(true);
      expect(await decodeQr(viaDesign.rawPayload, 'png')).toEqual(readByAll(content));

      const overridden = await generate(t.app, key, {
        content,
        type: 'url',
        outputFormat: 'png',
        design: id,
        darkColor: '#000000',
      });
      const overriddenInline = await generate(t.app, key, {
        content,
        type: 'url',
        outputFormat: 'png',
        ...PLAIN,
        darkColor: '#000000',
      });
      expect(overridden.rawPayload.equals(overriddenInline.rawPayload)).toBe(true);
      expect(overridden.rawPayload.equals(inline.rawPayload)).toBe(false);

      const signing = await newSigningKey(t.app, key);
      const signed = await t.app.inject({
        method: 'GET',
        url: signedUrl(signing, 'png', { content, type: 'url', design: id }),
      });
      expect(signed.rawPayload.equals(inline.rawPayload)).toBe(true);

      const json = await postBatch(t.app, key, {
        items: [{ content, type: 'url', outputFormat: 'png', design: id, name: 'json' }],
      });
      const csvBody = `content,type,outputFormat,design,name\n${content},url,png,${id},csv\n`;
      const csv = await postBatch(t.app, key, csvBody, { 'content-type': 'text/csv' });
      for (const [accepted, file] of [
        [json, 'json.png'],
        [csv, 'csv.png'],
      ] as const) {
        const batchId = acceptedBatchId(accepted);
        await waitForBatch(getAs(t.app, key), batchId);
        await withArchive(getAs(t.app, key), batchId, async ({ dir }) => {
          expect((await readFile(join(dir, file))).equals(inline.rawPayload)).toBe(true);
        });
      }

      const code = await codesApi(t.app, key).create({ target: 'https://example.com/target' });
      const codeId = code.json().id as string;
      const shortUrl = code.json().shortUrl as string;
      const codeInline = await generate(t.app, key, { content: shortUrl, type: 'url', outputFormat: 'png', ...PLAIN });
      const codeImage = await t.app.inject({
        method: 'GET',
        url: `/api/v1/QRManager/codes/${codeId}/image?design=${id}`,
        headers: { 'x-api-key': key },
      });
      expect(codeImage.statusCode).toBe(200);
      expect(codeImage.rawPayload.equals(codeInline.rawPayload)).toBe(true);
    },
    60_000,
  );

  it('a branded design (shapes, frame) by generate and by signed URL equals the fields inline', async () => {
    const { key } = await t.newCaller('pro');
    const branded = { ...PLAIN, moduleShape: 'rounded', finderShape: 'rounded', frame: { text: 'Scan me' } };
    const id = (await designs(key).create({ name: 'branded', options: branded })).json().id as string;
    const content = 'https://example.com/branded';
    const inline = await generate(t.app, key, { content, type: 'url', outputFormat: 'svg', ...branded });
    expect(inline.statusCode).toBe(200);
    expect(
      (await generate(t.app, key, { content, type: 'url', outputFormat: 'svg', design: id })).rawPayload.equals(
        inline.rawPayload,
      ),
    ).toBe(true);
    const signing = await newSigningKey(t.app, key);
    const signed = await t.app.inject({
      method: 'GET',
      url: signedUrl(signing, 'svg', { content, type: 'url', design: id }),
    });
    expect(signed.rawPayload.equals(inline.rawPayload)).toBe(true);
  });
});
