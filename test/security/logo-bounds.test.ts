// A logo upload costs what the caller's plan allows before any decoding: the logo limit, the key's burst, a pixel bound
// read from the header; the portal lists thumbnails by URL.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MAX_LOGO_PIXELS } from '../../src/adapters/imaging/logo-normaliser.sharp.js';
import { useTestApp } from '../helpers/app.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';
import { PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();

/**
 * A PNG signature and nothing decodable after it: any decoder would refuse it, so an answer other than 400 was given
 * before decoding.
 */
const SIGNATURE_ONLY = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 7),
]);

describe('logo uploads are bounded before decoding', () => {
  it('answers logo_limit_reached for a full account without decoding the upload', async () => {
    const { key } = await t.newCaller('free'); // the free plan keeps one logo
    expect((await uploadLogo(t.app, key, await logoPng(), 'image/png')).statusCode).toBe(201);
    const res = await uploadLogo(t.app, key, SIGNATURE_ONLY, 'image/png');
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ code: 'logo_limit_reached', limit: 1 });
  });

  it('refuses an image whose header declares more than 4096 × 4096 pixels', async () => {
    const { key } = await t.newCaller('pro');
    const huge = await sharp({ create: { width: 5_000, height: 4_000, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(huge.length).toBeLessThan(1_048_576);
    const res = await uploadLogo(t.app, key, huge, 'image/png');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request', maxPixels: MAX_LOGO_PIXELS });
    expect(res.json().detail).toContain('5000 × 4000');
  });

  it('takes a slot of the key’s burst per upload, decodable or not', async () => {
    const { key } = await t.newCaller('free'); // burst 10 a second; the test clock stands still
    for (let i = 0; i < 10; i++)
      expect((await uploadLogo(t.app, key, SIGNATURE_ONLY, 'image/png')).statusCode).toBe(400);
    const refused = await uploadLogo(t.app, key, SIGNATURE_ONLY, 'image/png');
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.json().code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBe('1');
    t.clock.now = new Date(t.clock.now.getTime() + 1_001);
  });
});

describe('the portal Logos page', () => {
  it('lists thumbnails by URL, each cached for good and served only to its account', async () => {
    const email = `logos-${Date.now()}@example.com`;
    const client = new PortalClient(t.app);
    await client.signInLocally(email);
    const [account] = await t.stores.accounts.findByEmail(email);
    await t.stores.accounts.setPlan(account!.id, 'pro');
    const png = await sharp(await logoPng())
      .resize(512, 340)
      .png()
      .toBuffer();
    const created = await t.stores.logos.createWithinLimit(
      {
        accountId: account!.id,
        name: 'mark',
        png,
        width: 512,
        height: 340,
        digest: 'digest-a',
        createdAt: t.clock.now,
      },
      25,
    );
    if (created === 'limit_reached') throw new Error('the logo should be stored');

    const page = await client.get('/portal/logos');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('data:image/png;base64');
    const src = /<img src="([^"]+\/thumbnail[^"]*)"/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
    expect(src).toBeDefined();

    const thumb = await client.get(src!);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/png');
    expect(thumb.headers['cache-control']).toContain('immutable');
    const meta = await sharp(thumb.rawPayload).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(96);
    expect(thumb.rawPayload.length).toBeLessThan(png.length);
    expect((await client.get(src!, { 'if-none-match': String(thumb.headers.etag) })).statusCode).toBe(304);

    // Another account cannot read it, nor can a request without a session.
    const other = new PortalClient(t.app);
    await other.signInLocally(`other-${Date.now()}@example.com`);
    expect((await other.get(src!)).statusCode).toBe(404);
    expect((await new PortalClient(t.app).get(src!)).statusCode).toBe(303);
  });
});
