// The in-process scan check runs for every new payload of a design (its verdict cached per payload and design), never once per QR version.
import { describe, expect, it } from 'vitest';
import type { Branding } from '../../src/domain/branding.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { renderDesign } from '../../src/render/branded/render-design.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

const branding: Branding = { moduleShape: 'dots', finderShape: 'circle', finderColor: '#c1121fff', errorCorrectionFixed: false };
const spec = (payload: string, size = 320) =>
  ({ payload, format: 'png', size, margin: 4, errorCorrection: 'Q', darkColor: '#000000ff', lightColor: '#ffffffff', branding }) as const;

describe('scan verdicts', () => {
  it('decodes each new payload of one design and version, and answers a repeated one from the cache', async () => {
    const caches = new DesignCaches();
    // Three payloads of the same length: the same QR version and design, different data modules.
    const payloads = ['https://example.com/a/0001', 'https://example.com/b/0002', 'https://example.com/c/0003'];
    for (const [i, payload] of payloads.entries()) {
      const png = await renderDesign(spec(payload), branding, caches);
      expect(caches.verdicts.size).toBe(i + 1);
      expect(await decodeQr(Buffer.from(png), 'png')).toEqual(readByAll(payload));
    }
    await renderDesign(spec(payloads[0]!), branding, caches);
    expect(caches.verdicts.size).toBe(3);
    // Anything else the pixels depend on is a new image too.
    await renderDesign(spec(payloads[0]!, 400), branding, caches);
    expect(caches.verdicts.size).toBe(4);
  });
});
