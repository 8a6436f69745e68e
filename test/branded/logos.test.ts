// Logo uploads: only real PNG/JPEG/WebP images, re-encoded without metadata, bounded in size and count, private to
// their account.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { LOGOS_URL, logoJpegWithExif, logoPng, uploadLogo } from '../helpers/logos.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/QRManager/logos', () => {
  it('stores a PNG and answers 201 with its id, size and a PNG media type', async () => {
    const { key } = await t.newCaller('pro');
    const res = await uploadLogo(t.app, key, await logoPng(), 'image/png');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      id: expect.stringMatching(/^logo_/),
      mediaType: 'image/png',
      width: 240,
      height: 160,
    });
    expect(res.headers.location).toBe(`${LOGOS_URL}/${res.json().id}`);
  });

  it('re-encodes a JPEG as PNG and strips its EXIF metadata', async () => {
    const { key, accountId } = await t.newCaller('pro');
    const jpeg = await logoJpegWithExif();
    expect(jpeg.includes('private-metadata-marker')).toBe(true);
    const res = await uploadLogo(t.app, key, jpeg, 'image/jpeg');
    expect(res.statusCode).toBe(201);
    const stored = await t.stores.logos.get(accountId, res.json().id);
    const png = Buffer.from(stored!.png);
    expect((await sharp(png).metadata()).format).toBe('png');
    expect(png.includes('private-metadata-marker')).toBe(false);
    expect(png.includes('SecretCam')).toBe(false);
    expect((await sharp(png).metadata()).exif).toBeUndefined();
  });

  it('accepts WebP', async () => {
    const { key } = await t.newCaller('pro');
    const res = await uploadLogo(
      t.app,
      key,
      await sharp(await logoPng())
        .webp()
        .toBuffer(),
      'image/webp',
    );
    expect(res.statusCode).toBe(201);
  });

  it('refuses a body that is not an image with 400 invalid_request', async () => {
    const { key } = await t.newCaller('pro');
    const res = await uploadLogo(t.app, key, 'just some text, not a picture', 'image/png');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'body' }] });
  });

  it('refuses a truncated PNG with 400 invalid_request', async () => {
    const { key } = await t.newCaller('pro');
    const res = await uploadLogo(t.app, key, (await logoPng()).subarray(0, 60), 'image/png');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_request');
  });

  it('refuses an SVG logo with 415 and says why', async () => {
    const { key } = await t.newCaller('pro');
    const hostile =
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><image href="https://evil.example/x.png"/></svg>';
    const res = await uploadLogo(t.app, key, hostile, 'image/svg+xml');
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({
      code: 'unsupported_media_type',
      detail: expect.stringContaining('SVG logos are refused'),
    });
  });

  it('refuses a hostile SVG dressed up as a PNG before any decoder reads it', async () => {
    const { key } = await t.newCaller('pro');
    const hostile =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>';
    for (const type of ['image/png', 'image/jpeg', 'image/webp']) {
      const res = await uploadLogo(t.app, key, hostile, type);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_request');
    }
  });

  it('refuses other media types with 415', async () => {
    const { key } = await t.newCaller('pro');
    const res = await uploadLogo(t.app, key, '{"logo":1}', 'application/json');
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('unsupported_media_type');
  });

  it('refuses a body over 1 MiB with 413 payload_too_large', async () => {
    const { key } = await t.newCaller('pro');
    const big = Buffer.concat([await logoPng(), Buffer.alloc(1_100_000)]);
    const res = await uploadLogo(t.app, key, big, 'image/png');
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
  });

  it("holds an account to its plan's logo count (free: 1) with 409 logo_limit_reached", async () => {
    const { key } = await t.newCaller('free');
    expect((await uploadLogo(t.app, key, await logoPng(), 'image/png')).statusCode).toBe(201);
    const second = await uploadLogo(t.app, key, await logoPng(), 'image/png');
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'logo_limit_reached', limit: 1 });
  });

  it('needs an API key', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: LOGOS_URL,
      headers: { 'content-type': 'image/png' },
      payload: await logoPng(),
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET and DELETE /api/v1/QRManager/logos', () => {
  it("lists the account's logos, deletes one, and frees its slot", async () => {
    const { key } = await t.newCaller('free');
    const id = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id;
    const list = await t.app.inject({ method: 'GET', url: LOGOS_URL, headers: { 'x-api-key': key } });
    expect(list.json().items.map((l: { id: string }) => l.id)).toEqual([id]);
    const del = await t.app.inject({ method: 'DELETE', url: `${LOGOS_URL}/${id}`, headers: { 'x-api-key': key } });
    expect(del.statusCode).toBe(204);
    expect((await t.app.inject({ method: 'GET', url: LOGOS_URL, headers: { 'x-api-key': key } })).json().items).toEqual(
      [],
    );
    expect((await uploadLogo(t.app, key, await logoPng(), 'image/png')).statusCode).toBe(201);
  });

  it("keeps each account's logos to itself: another account cannot list, use or delete them", async () => {
    const owner = await t.newCaller('pro');
    const other = await t.newCaller('pro');
    const id = (await uploadLogo(t.app, owner.key, await logoPng(), 'image/png')).json().id;
    expect(
      (await t.app.inject({ method: 'GET', url: LOGOS_URL, headers: { 'x-api-key': other.key } })).json().items,
    ).toEqual([]);
    const use = await generate(t.app, other.key, {
      content: 'https://example.com',
      type: 'url',
      outputFormat: 'png',
      logo: { id },
    });
    expect(use.statusCode).toBe(400);
    expect(use.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'logo.id' }] });
    const del = await t.app.inject({
      method: 'DELETE',
      url: `${LOGOS_URL}/${id}`,
      headers: { 'x-api-key': other.key },
    });
    expect(del.statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: LOGOS_URL, headers: { 'x-api-key': owner.key } })).json().items,
    ).toHaveLength(1);
  });
});

describe('named logos: ?name= on upload, PATCH /api/v1/QRManager/logos/{id}', () => {
  const headers = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json' });

  it('keeps the name given on upload, lists it, and names an unnamed upload "Untitled logo"', async () => {
    const { key } = await t.newCaller('pro');
    const png = await logoPng();
    const named = await t.app.inject({
      method: 'POST',
      url: `${LOGOS_URL}?name=${encodeURIComponent('  Acme mark ')}`,
      headers: { 'x-api-key': key, 'content-type': 'image/png' },
      payload: png,
    });
    expect(named.statusCode).toBe(201);
    expect(named.json()).toMatchObject({ name: 'Acme mark' });
    expect((await uploadLogo(t.app, key, png, 'image/png')).json()).toMatchObject({ name: 'Untitled logo' });
    const list = await t.app.inject({ method: 'GET', url: LOGOS_URL, headers: { 'x-api-key': key } });
    // Both uploaded at the test clock's one instant: their order is not the point.
    expect(
      list
        .json()
        .items.map((logo: { name: string }) => logo.name)
        .sort(),
    ).toEqual(['Acme mark', 'Untitled logo']);
  });

  it('renames a logo; the new name is what later reads and lists show', async () => {
    const { key } = await t.newCaller('pro');
    const id = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id;
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `${LOGOS_URL}/${id}`,
      headers: headers(key),
      payload: { name: 'Spring poster' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id, name: 'Spring poster', width: 240, height: 160 });
    const list = await t.app.inject({ method: 'GET', url: LOGOS_URL, headers: { 'x-api-key': key } });
    expect(list.json().items).toEqual([renamed.json()]);
  });

  it(
    'refuses a blank, overlong or control-character ' + 'name, and a field it does not know, with 400 naming ' + 'it',
    async () => {
      const { key } = await t.newCaller('pro');
      const id = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id;
      for (const payload of [
        { name: '   ' },
        { name: 'x'.repeat(65) },
        { name: 'a\nb' },
        { name: 'ok', colour: 'red' },
        {},
      ]) {
        const res = await t.app.inject({ method: 'PATCH', url: `${LOGOS_URL}/${id}`, headers: headers(key), payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().code).toBe('invalid_request');
      }
      const upload = await t.app.inject({
        method: 'POST',
        url: `${LOGOS_URL}?name=${'y'.repeat(65)}`,
        headers: { 'x-api-key': key, 'content-type': 'image/png' },
        payload: await logoPng(),
      });
      expect(upload.statusCode).toBe(400);
      expect(upload.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'name' }] });
    },
  );

  it("answers 404 for another account's logo and leaves its name alone", async () => {
    const owner = await t.newCaller('pro');
    const other = await t.newCaller('pro');
    const id = (await uploadLogo(t.app, owner.key, await logoPng(), 'image/png')).json().id;
    const res = await t.app.inject({
      method: 'PATCH',
      url: `${LOGOS_URL}/${id}`,
      headers: headers(other.key),
      payload: { name: 'mine now' },
    });
    expect(res.statusCode).toBe(404);
    const list = await t.app.inject({ method: 'GET', url: LOGOS_URL, headers: { 'x-api-key': owner.key } });
    expect(list.json().items[0].name).toBe('Untitled logo');
  });
});
