// The published contract: /openapi.json describes what the service answers, and the test helper fails any answer it
// does not.
import { describe, expect, it } from 'vitest';
import { createTestApp, generate, GENERATE_URL, useTestApp } from '../helpers/app.js';
import { BATCHES_URL, waitForBatch } from '../helpers/batches.js';
import { codesApi, scan } from '../helpers/codes.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';
import type { OpenApiDocument } from '../helpers/openapi-validator.js';

type Operation = {
  operationId?: string;
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<
    string,
    { content?: Record<string, { schema?: Record<string, unknown> }>; headers?: Record<string, unknown> }
  >;
};

// qr.internal: a name the operator lets the service answer on, for the document's servers below.
const t = useTestApp({ env: { ALLOWED_HOSTS: 'qr.internal' } });

async function documentOf(app = t.app, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url: '/openapi.json', headers });
  expect(res.statusCode).toBe(200);
  return res.json() as OpenApiDocument & {
    servers: Array<{ url: string }>;
    components: Record<string, Record<string, unknown>>;
  };
}

function operation(document: OpenApiDocument, path: string, method: string): Operation {
  return document.paths[path]![method] as Operation;
}

describe('the OpenAPI document describes the service', () => {
  it('names every operation, marks the API ones with a key scope and the public ones security: []', async () => {
    const document = await documentOf();
    const ids: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item) as Array<[string, Operation]>) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-zA-Z]+$/);
        ids.push(op.operationId!);
        // Every operation says how it is called: the API by key, the probes and a scan by nothing at all.
        expect(op.security, `${method} ${path}`).toBeDefined();
        // The API by a key holding the operation's one scope (test/http/key-scopes.test.ts checks each scope).
        if (path.startsWith('/api/v1/'))
          expect(op.security, `${method} ${path}`).toEqual([{ apiKey: [expect.any(String)] }]);
        if (['/healthz', '/readyz', '/r/{slug}'].includes(path)) expect(op.security, `${method} ${path}`).toEqual([]);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names where it is served: PUBLIC_URL, or else the address the request reached', async () => {
    expect((await documentOf(t.app, { host: 'qr.internal:8080' })).servers).toEqual([
      { url: 'http://qr.internal:8080' },
    ]);
    const withPublicUrl = await createTestApp({ env: { PUBLIC_URL: 'https://qr.example.net' } });
    try {
      expect((await documentOf(withPublicUrl.app)).servers).toEqual([{ url: 'https://qr.example.net' }]);
    } finally {
      await withPublicUrl.close();
    }
  });

  it("documents a dynamic code's image as PNG, WebP and SVG bytes, and answers one", async () => {
    const document = await documentOf();
    const image = operation(document, '/api/v1/QRManager/codes/{id}/image', 'get');
    expect(Object.keys(image.responses['200']!.content!)).toEqual(
      expect.arrayContaining(['image/png', 'image/webp', 'image/svg+xml']),
    );
    expect(image.responses['200']!.content!['image/png']!.schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(image.responses['304']).toBeDefined();
    const caller = await t.newCaller('pro');
    const codes = codesApi(t.app, caller.key);
    const code = await codes.created('https://example.com/contract');
    const res = await codes.image(code.id, '?outputFormat=webp');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
  });

  it('documents a scan as 302 with Location, and 404 and 410 as HTML pages', async () => {
    const document = await documentOf();
    const follow = operation(document, '/r/{slug}', 'get');
    expect(Object.keys(follow.responses)).toEqual(expect.arrayContaining(['302', '404', '410']));
    expect(follow.responses['200']).toBeUndefined();
    expect(follow.responses['302']!.headers).toHaveProperty('Location');
    expect(Object.keys(follow.responses['410']!.content!)).toEqual(['text/html']);
    const caller = await t.newCaller('free');
    const codes = codesApi(t.app, caller.key);
    const code = await codes.created('https://example.com/scan');
    expect((await scan(t.app, code.slug)).statusCode).toBe(302);
    expect((await scan(t.app, 'zzzzzzzz')).statusCode).toBe(404);
    await codes.patch(code.id, { status: 'paused' });
    expect((await scan(t.app, code.slug)).statusCode).toBe(410);
  });

  it('documents the archive as application/zip, and a batch body as JSON or CSV', async () => {
    const document = await documentOf();
    const archive = operation(document, '/api/v1/QRManager/batches/{id}/archive', 'get');
    expect(Object.keys(archive.responses['200']!.content!)).toEqual(['application/zip']);
    const create = operation(document, '/api/v1/QRManager/batches', 'post');
    expect(Object.keys(create.requestBody!.content)).toEqual(['application/json', 'text/csv']);
    const caller = await t.newCaller('pro');
    const posted = await t.app.inject({
      method: 'POST',
      url: BATCHES_URL,
      headers: { 'content-type': 'text/csv', 'x-api-key': caller.key },
      payload: 'content,type,outputFormat\r\nhttps://example.com/csv,url,png\r\n',
    });
    expect(posted.statusCode).toBe(202);
    const batch = await waitForBatch(
      (url) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': caller.key } }),
      posted.json().id,
    );
    const zip = await t.app.inject({
      method: 'GET',
      url: `${BATCHES_URL}/${batch.id}/archive`,
      headers: { 'x-api-key': caller.key },
    });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
  });

  it('documents the logo upload as the raw image bytes', async () => {
    const document = await documentOf();
    const upload = operation(document, '/api/v1/QRManager/logos', 'post');
    expect(Object.keys(upload.requestBody!.content)).toEqual(['image/png', 'image/jpeg', 'image/webp']);
    const caller = await t.newCaller('pro');
    const res = await uploadLogo(t.app, caller.key, await logoPng(), 'image/png');
    expect(res.statusCode).toBe(201);
  });

  it(
    'documents pix name and city with the BR Code limits the encoder holds them to (25 and 15, accents counted ' +
      'once)',
    async () => {
      const document = await documentOf();
      const body = operation(document, GENERATE_URL, 'post').requestBody!.content['application/json'] as {
        schema: { properties: { content: { anyOf: unknown[] } } };
      };
      const pix = JSON.stringify(body.schema.properties.content.anyOf).match(/"title":"pix fields".*?"required"/)![0];
      expect(pix).toContain('"name":{"type":"string","minLength":1,"maxLength":25');
      expect(pix).toContain('"city":{"type":"string","minLength":1,"maxLength":15');
      const caller = await t.newCaller('free');
      const pixBody = (name: string, city: string) => ({
        type: 'pix',
        outputFormat: 'png',
        content: { key: 'fulano@example.com', name, city },
      });
      expect((await generate(t.app, caller.key, pixBody('N'.repeat(25), 'C'.repeat(15)))).statusCode).toBe(200);
      // Decomposed accents (a letter and a combining mark) count as the one letter they are.
      expect((await generate(t.app, caller.key, pixBody('Joa\u0303o'.repeat(5), 'Sa\u0303o Paulo'))).statusCode).toBe(
        200,
      );
      for (const [name, city, field] of [
        ['N'.repeat(26), 'Rio', 'content.name'],
        ['Ana', 'C'.repeat(16), 'content.city'],
      ] as const) {
        const res = await generate(t.app, caller.key, pixBody(name, city));
        expect(res.statusCode).toBe(400);
        expect(JSON.stringify(res.json())).toContain(field);
      }
    },
  );
});

describe('the response validator in the test helper', () => {
  it('fails an answer whose status, media type, body or required header the document does not describe', async () => {
    const drifted = await createTestApp({
      alterDocument(document) {
        const generateOp = document.paths[GENERATE_URL]!.post!;
        delete generateOp.responses!['401'];
        generateOp.responses!['200']!.content = { 'image/webp': {} };
        generateOp.responses!['400']!.headers = { 'X-Not-Sent': { required: true, schema: { type: 'string' } } };
        const schemas = document.components!.schemas as Record<string, { required: string[] }>;
        schemas.DynamicCode!.required.push('notAField');
      },
    });
    try {
      const caller = await drifted.newCaller('free');
      await expect(
        generate(drifted.app, undefined, { content: 'x', type: 'text', outputFormat: 'png' }),
      ).rejects.toThrow(
        /POST \/api\/v1\/QRManager\/generate \(generateQr\) answered 401: status 401 is not documented/,
      );
      await expect(
        generate(drifted.app, caller.key, { content: 'x', type: 'text', outputFormat: 'png' }),
      ).rejects.toThrow(/media type image\/png is not documented/);
      await expect(
        generate(drifted.app, caller.key, { content: 'x', type: 'nope', outputFormat: 'png' }),
      ).rejects.toThrow(/required header X-Not-Sent is missing/);
      await expect(codesApi(drifted.app, caller.key).create({ target: 'https://example.com/' })).rejects.toThrow(
        /does not match the schema: .*notAField/,
      );
      // What the document does describe still passes through the same app.
      expect(
        (await generate(drifted.app, caller.key, { content: 'x', type: 'text', outputFormat: 'webp' })).statusCode,
      ).toBe(200);
    } finally {
      await drifted.close();
    }
  });
});
