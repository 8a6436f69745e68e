// A request no image can be drawn for is refused before it is metered and before any render: it costs neither quota,
// burst nor a matrix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** Renders the pipeline refused (too long, too small) as /metrics counts them: each one a matrix built for nothing. */
async function refusedRenders(): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const counts = [...text.matchAll(/^qrm_render_duration_seconds_count\{[^}]*outcome="rejected"[^}]*\} (\d+)$/gm)].map(
    (m) => Number(m[1]),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}

// 300 bytes at H is version 18 (89 modules); with the default margin of 4 and 2 px a module it needs 194 px.
const TOO_SMALL = { content: 'x'.repeat(300), type: 'text', outputFormat: 'png', size: 120, errorCorrection: 'H' };
// Digits pack at 10 bits per 3: 3,000 of them fit at L (version 25, as segno also chooses), though they are longer than
// the 2,953-byte limit.
const MANY_DIGITS = '7'.repeat(3000);

describe('requests that cannot be drawn', () => {
  it(
    'a free key sending 30 too-small requests in one second gets 30 × 400 naming the minimum, and uses neither ' +
      'quota nor burst',
    async () => {
      const caller = await t.newCaller('free'); // burst 10/s: were they counted, the 11th would be a 429
      const before = await refusedRenders();
      const answers = await Promise.all(Array.from({ length: 30 }, () => generate(t.app, caller.key, TOO_SMALL)));
      for (const res of answers) {
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_request', minimumSize: 194, errors: [{ field: 'size' }] });
      }
      expect(await t.stores.meter.usage(caller.accountId, periodOf(new Date()))).toEqual({ requests: 0, qrs: 0 });
      expect(await refusedRenders()).toBe(before);
      // The boundary is exact: the minimum it named is drawn, counted once, and scans.
      const fits = await generate(t.app, caller.key, { ...TOO_SMALL, size: 194 });
      expect(fits.statusCode).toBe(200);
      expect(await decodeQr(fits.rawPayload, 'png')).toEqual(readByAll(TOO_SMALL.content));
      expect(await t.stores.meter.usage(caller.accountId, periodOf(new Date()))).toEqual({ requests: 1, qrs: 1 });
    },
  );

  it('content too long for any version: 422 with the limit, not counted, never rendered', async () => {
    const caller = await t.newCaller('pro');
    const before = await refusedRenders();
    const res = await generate(t.app, caller.key, {
      content: 'x'.repeat(1274),
      type: 'text',
      outputFormat: 'png',
      errorCorrection: 'H',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'content_too_long', limit: 1273, length: 1274 });
    expect(await t.stores.meter.usage(caller.accountId, periodOf(new Date()))).toEqual({ requests: 0, qrs: 0 });
    expect(await refusedRenders()).toBe(before);
  });

  it(
    "decides from the encoder's own segments: 3,000 digits are drawn at L, and too small a size for them is " +
      'refused with their minimum',
    async () => {
      const caller = await t.newCaller('pro');
      const drawn = await generate(t.app, caller.key, {
        content: MANY_DIGITS,
        type: 'text',
        outputFormat: 'png',
        size: 1024,
        errorCorrection: 'L',
      });
      expect(drawn.statusCode).toBe(200);
      expect(await decodeQr(drawn.rawPayload, 'png')).toEqual(readByAll(MANY_DIGITS));
      // Version 25 is 117 modules; with margin 4, 2 px each: 250 px. A byte-length estimate would have refused it
      // outright.
      const refused = await generate(t.app, caller.key, {
        content: MANY_DIGITS,
        type: 'text',
        outputFormat: 'png',
        size: 249,
        errorCorrection: 'L',
      });
      expect(refused.json()).toMatchObject({ code: 'invalid_request', minimumSize: 250 });
      expect(await t.stores.meter.usage(caller.accountId, periodOf(new Date()))).toEqual({ requests: 1, qrs: 1 });
    },
  );
});
