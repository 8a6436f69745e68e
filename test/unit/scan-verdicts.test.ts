// The in-process scan check: per payload until a design class has shown it reads (three payloads, a logo up to 0.25
// that leaves every block spare correction, no circle finders), then shared; never after a failure.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Branding } from '../../src/domain/branding.js';
import type { ErrorCorrectionLevel } from '../../src/domain/render-options.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { renderDesign, UnscannableDesignError } from '../../src/render/branded/render-design.js';
import { SHARED_LOGO_SCALE_MAX, SHARED_VERDICT_PASSES } from '../../src/render/branded/shared-verdict.js';
import { clearedSquare, logoLeavesSpare } from '../../src/render/logo-level.js';
import { codewordsTouchedPerBlock, correctableErrorsPerBlock } from '../../src/render/qr-codeword-map.js';
import { plannedSymbol } from '../../src/render/qr-matrix.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { redFinders } from '../helpers/branded-specs.js';
import { logoPng } from '../helpers/logos.js';

let logo: NonNullable<Branding['logo']>;
beforeAll(async () => {
  const png = await logoPng();
  logo = {
    id: 'test-logo',
    digest: createHash('sha256').update(png).digest('base64url'),
    png: new Uint8Array(png),
    scale: 0.2,
  };
});

const spec = (payload: string, branding: Branding, errorCorrection: ErrorCorrectionLevel = 'M', size = 512) =>
  ({
    payload,
    format: 'png',
    size,
    margin: 4,
    errorCorrection,
    darkColor: '#000000ff',
    lightColor: '#ffffffff',
    branding,
  }) as const;

/**
 * URLs of one length in letters only (one byte segment): the same QR version, so the same design class, with different
 * data modules.
 */
const urls = (prefix: string, count: number, length = 44) =>
  Array.from({ length: count }, (_, i) => {
    const base = `https://example.com/${prefix}/`;
    const letters = [...createHash('sha256').update(`${prefix}${i}`).digest()]
      .map((byte) => String.fromCharCode(97 + (byte % 26)))
      .join('');
    return base + letters.repeat(8).slice(0, length - base.length);
  });

describe('scan verdicts', () => {
  it(
    'decodes each new payload of a design with circle finders (never shared), and answers a repeated one from ' +
      'the cache',
    async () => {
      const branding: Branding = redFinders('dots', 'circle');
      const caches = new DesignCaches();
      // One more payload than a class needs to share its verdict: circle finders still decode it.
      const payloads = urls('a', SHARED_VERDICT_PASSES + 1, 26);
      for (const [i, payload] of payloads.entries()) {
        const png = await renderDesign(spec(payload, branding, 'Q', 320), branding, caches);
        expect(caches.verdicts.size).toBe(i + 1);
        expect(await decodeQr(Buffer.from(png), 'png')).toEqual(readByAll(payload));
      }
      expect(caches.classes.size).toBe(1);
      await renderDesign(spec(payloads[0]!, branding, 'Q', 320), branding, caches);
      expect(caches.verdicts.size).toBe(payloads.length);
      // Anything else the pixels depend on is a new image too.
      await renderDesign(spec(payloads[0]!, branding, 'Q', 400), branding, caches);
      expect(caches.verdicts.size).toBe(payloads.length + 1);
      expect(caches.scanCounts).toEqual({ decoded: payloads.length + 1, shared: 0 });
    },
  );

  it(
    `answers a new payload of a class whose verdict ${SHARED_VERDICT_PASSES} payloads established without ` +
      `decoding it, and the image reads on ZXing, zbar and jsQR`,
    async () => {
      // The bench row's design: rounded shapes, red finders, a logo at 0.2, the level left to the renderer.
      const branding: Branding = redFinders('rounded', 'rounded', logo);
      const caches = new DesignCaches();
      const payloads = urls('b', SHARED_VERDICT_PASSES + 2);
      const images: Uint8Array[] = [];
      for (const payload of payloads) images.push(await renderDesign(spec(payload, branding), branding, caches));
      expect(caches.classes.size).toBe(1);
      expect(caches.scanCounts).toEqual({ decoded: SHARED_VERDICT_PASSES, shared: 2 });
      for (const [i, payload] of payloads.entries())
        expect(await decodeQr(Buffer.from(images[i]!), 'png')).toEqual(readByAll(payload));
    },
  );

  it(
    `checks every payload of a design with a logo above ${SHARED_LOGO_SCALE_MAX}, the corpus's reach, even where ` +
      `the codeword rule holds`,
    async () => {
      const branding: Branding = {
        moduleShape: 'square',
        finderShape: 'square',
        finderColor: '#000000ff',
        logo: { ...logo, scale: 0.3 },
        errorCorrectionFixed: true,
      };
      const payloads = urls('f', SHARED_VERDICT_PASSES + 2, 80);
      const size = plannedSymbol(payloads[0]!, 'H')!.size;
      expect(logoLeavesSpare(size, 'H', clearedSquare(size, 0.3))).toBe(true);
      const caches = new DesignCaches();
      for (const payload of payloads) await renderDesign(spec(payload, branding, 'H'), branding, caches);
      expect(caches.classes.size).toBe(1);
      expect(caches.scanCounts).toEqual({ decoded: payloads.length, shared: 0 });
    },
  );

  it('keeps checking every payload of a class once one of its payloads failed, however many pass after', async () => {
    const branding: Branding = redFinders('rounded', 'rounded', logo);
    const caches = new DesignCaches();
    // A lone surrogate is written as U+FFFD: no reader gives this payload back, whatever the design.
    const unreadable = `${urls('c', 1, 38)[0]!}\ud800`;
    await expect(renderDesign(spec(unreadable, branding), branding, caches)).rejects.toBeInstanceOf(
      UnscannableDesignError,
    );
    for (const payload of urls('d', SHARED_VERDICT_PASSES + 2))
      await renderDesign(spec(payload, branding), branding, caches);
    expect(caches.classes.size).toBe(1); // the failing payload was of the same class
    expect(caches.scanCounts).toEqual({ decoded: SHARED_VERDICT_PASSES + 3, shared: 0 });
  });

  it(
    'checks every payload of a design whose logo touches more codewords than a block corrects, and refuses one ' +
      'that fails after others passed',
    async () => {
      // A logo at 0.33 on version 14 at Q: logoFits admits it, but it touches 11 codewords of a block that corrects 10.
      const big = { ...logo, scale: 0.33 };
      const branding: Branding = {
        moduleShape: 'square',
        finderShape: 'square',
        finderColor: '#000000ff',
        logo: big,
        errorCorrectionFixed: true,
      };
      const payloads = urls('e', 40, 250);
      const size = plannedSymbol(payloads[0]!, 'Q')!.size;
      expect(size).toBe(17 + 4 * 14);
      const touched = Math.max(...codewordsTouchedPerBlock(14, 'Q', clearedSquare(size, big.scale)));
      expect(touched).toBeGreaterThan(correctableErrorsPerBlock(14, 'Q'));
      expect(logoLeavesSpare(size, 'Q', clearedSquare(size, big.scale))).toBe(false);

      // Which payloads read with this logo depends on their data: each is checked alone first, to pick some of each.
      const reads = async (payload: string) =>
        renderDesign(spec(payload, branding, 'Q'), branding, new DesignCaches()).then(
          () => true,
          () => false,
        );
      const passing: string[] = [];
      let failing: string | undefined;
      for (const payload of payloads) {
        if (await reads(payload)) passing.push(payload);
        else failing ??= payload;
        if (failing && passing.length > SHARED_VERDICT_PASSES) break;
      }
      expect(passing.length).toBeGreaterThan(SHARED_VERDICT_PASSES);
      expect(failing).toBeDefined();

      // One thread's caches: the passes come first, so a wrong rule would have shared their verdict by the time the
      // failing payload comes.
      const caches = new DesignCaches();
      for (const payload of passing) await renderDesign(spec(payload, branding, 'Q'), branding, caches);
      await expect(renderDesign(spec(failing!, branding, 'Q'), branding, caches)).rejects.toBeInstanceOf(
        UnscannableDesignError,
      );
      // Every payload decoded, none shared; past the failing one's own check, the changes its refusal tried (a smaller
      // logo first).
      expect(caches.scanCounts.shared).toBe(0);
      expect(caches.scanCounts.decoded).toBeGreaterThan(passing.length);
      expect(caches.classes.size).toBe(1);
    },
  );
});
