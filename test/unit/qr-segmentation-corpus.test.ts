// The segment planner against segno and libqrencode on 330 payloads: never a larger version where their code reads back
// on ZXing, zbar and jsQR, and every sampled image decodes exactly on all three.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CORRECTION_LEVELS, type ErrorCorrectionLevel } from '../../src/domain/render-options.js';
import { chooseSymbol } from '../../src/render/qr-encoding.js';
import { renderImage } from '../../src/render/render-image.js';
import { decodePngFiles, READERS } from '../helpers/decode.js';
import { CORPUS } from '../helpers/text-corpus.js';
import { referenceVersions, type ReferenceVersions } from '../helpers/reference-encoders.js';

const ECC_NAMES = { L: 'low', M: 'medium', Q: 'quartile', H: 'high' } as const;

let dir: string;
let reference: ReferenceVersions;
const ours = CORPUS.map((payload) =>
  ERROR_CORRECTION_LEVELS.map((level) => chooseSymbol(payload, ECC_NAMES[level], { eci: false })),
);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qrm-corpus-'));
  reference = await referenceVersions(CORPUS, ERROR_CORRECTION_LEVELS);
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function renderAll(
  cases: Array<{ payload: string; level: ErrorCorrectionLevel; eci: boolean }>,
  tag: string,
): Promise<string[]> {
  return Promise.all(
    cases.map(async ({ payload, level, eci }, i) => {
      // Four pixels a module keeps the images small, so the decoders spend their time reading, not scanning.
      const modules = 17 + 4 * chooseSymbol(payload, ECC_NAMES[level], { eci })!.version + 8;
      const png = await renderImage({
        payload,
        format: 'png',
        size: 4 * modules,
        margin: 4,
        errorCorrection: level,
        darkColor: '#000000ff',
        lightColor: '#ffffffff',
        eci,
      });
      const path = join(dir, `${tag}-${i}.png`);
      await writeFile(path, png);
      return path;
    }),
  );
}

describe(
  'QR segmentation on a corpus of 330 payloads ' + '(Japanese, Latin-1, digits with text, URLs with long ' + 'numbers)',
  () => {
    it('holds at least 300 distinct payloads, every one fitting at every level', () => {
      expect(new Set(CORPUS).size).toBeGreaterThanOrEqual(300);
      expect(ours.flat().every((symbol) => symbol !== undefined)).toBe(true);
    });

    it(
      'never takes a larger version than segno or libqrencode, except where their code is misread by ZXing, zbar ' +
        'or jsQR',
      async () => {
        const larger: Array<{
          payload: string;
          level: ErrorCorrectionLevel;
          ours: number;
          segno: number;
          qrencode: number;
        }> = [];
        let comparisons = 0;
        CORPUS.forEach((payload, p) =>
          ERROR_CORRECTION_LEVELS.forEach((level, l) => {
            const segno = reference.segno[p]![l]!;
            const qrencode = reference.qrencode[p]![l]!;
            const version = ours[p]![l]!.version;
            comparisons++;
            if (version > segno || version > qrencode) larger.push({ payload, level, ours: version, segno, qrencode });
          }),
        );
        expect(comparisons).toBe(CORPUS.length * 4);
        // Where we are larger, the other encoders put the text in ISO-8859-1, Shift-JIS or UTF-8 bytes without an
        // ECI; segno's own image of each must then fail to read back exactly in one of the three readers.
        const segnoImages = larger.map(
          ({ payload, level }, i) => [payload, level, join(dir, `segno-${i}.png`)] as [string, string, string],
        );
        if (segnoImages.length > 0) await referenceVersions([], [], segnoImages);
        const decoded = segnoImages.length > 0 ? await decodePngFiles(segnoImages.map(([, , path]) => path)) : [];
        const readBackExactly = larger.filter((c, i) => READERS.every((reader) => decoded[i]![reader] === c.payload));
        expect(readBackExactly).toEqual([]);
      },
      120_000,
    );

    it(
      'decodes exactly with ZXing, zbar and jsQR: every ' + 'code beyond ASCII, and a random sample of the rest',
      async () => {
        const cases = CORPUS.flatMap((payload, p) => {
          const level = ERROR_CORRECTION_LEVELS[p % 4]!;
          const symbol = ours[p]![p % 4]!;
          const special = symbol.eci !== undefined || symbol.kanji !== undefined;
          return special || p % 5 === 0 ? [{ payload, level, eci: false }] : [];
        });
        expect(cases.length).toBeGreaterThan(150);
        const decoded = await decodePngFiles(await renderAll(cases, 'ours'));
        expect(
          cases.flatMap((c, i) =>
            READERS.every((reader) => decoded[i]![reader] === c.payload) ? [] : [{ ...c, ...decoded[i] }],
          ),
        ).toEqual([]);
      },
      120_000,
    );

    it('with eci: true, every reader reads UTF-8 text exactly, Japanese included', async () => {
      const cases = CORPUS.filter((payload) => [...payload].some((ch) => ch.codePointAt(0)! > 0x7f))
        .filter((_, i) => i % 6 === 0)
        .map((payload) => ({ payload, level: 'M' as const, eci: true }));
      expect(cases.length).toBeGreaterThan(20);
      const decoded = await decodePngFiles(await renderAll(cases, 'eci'));
      expect(
        cases.flatMap((c, i) =>
          READERS.every((reader) => decoded[i]![reader] === c.payload) ? [] : [{ ...c, ...decoded[i] }],
        ),
      ).toEqual([]);
    }, 60_000);
  },
);
