// Every answer of the API carries X-Content-Type-Options: nosniff — images, problem documents, 304s, probes and the
// docs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, GENERATE_URL, generate, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = (await t.newCaller('free')).key;
});
afterAll(async () => t?.close());

const VALID = { content: 'https://example.com', type: 'url', outputFormat: 'png' };

describe('X-Content-Type-Options: nosniff', () => {
  it('is on an image and on its 304', async () => {
    const image = await generate(t.app, key, VALID);
    expect(image.statusCode).toBe(200);
    expect(image.headers['x-content-type-options']).toBe('nosniff');
    const notModified = await t.app.inject({
      method: 'POST',
      url: GENERATE_URL,
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'if-none-match': String(image.headers.etag) },
      payload: JSON.stringify(VALID),
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each([
    ['invalid content (400)', () => generate(t.app, key, { ...VALID, content: 'not a url' }), 400],
    ['no API key (401)', () => generate(t.app, undefined, VALID), 401],
    ['an unknown route (404)', () => t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' }), 404],
    [
      'a body too large (413)',
      () => generate(t.app, key, JSON.stringify({ ...VALID, content: 'x'.repeat(2_000_000) })),
      413,
    ],
    [
      'a text/plain body (415)',
      () =>
        t.app.inject({
          method: 'POST',
          url: GENERATE_URL,
          headers: { 'content-type': 'text/plain', 'x-api-key': key },
          payload: 'x',
        }),
      415,
    ],
    ['malformed JSON (400)', () => generate(t.app, key, '{"content":'), 400],
  ])('is on the problem document for %s', async (_name, send, status) => {
    const res = await send();
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(['/healthz', '/readyz', '/metrics', '/openapi.json'])('is on %s', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
