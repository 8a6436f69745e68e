// The matrix encoder, verified on a random corpus: every code decodes to its payload with ZXing, zbar and jsQR.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CORRECTION_LEVELS } from '../../src/domain/render-options.js';
import { renderImage } from '../../src/render/render-image.js';
import { BYTE_CAPACITY } from '../../src/render/qr-matrix.js';
import { decodeImages, READERS } from '../helpers/decode.js';

const CORPUS_SIZE = 120;

/** Payload shapes that exercise every encoding mode: digits, upper-case alphanumerics, ASCII, and multi-byte UTF-8. */
const payload = fc.oneof(
  fc.stringMatching(/^[0-9]{1,400}$/),
  fc.stringMatching(/^[0-9A-Z $%*+\-./:]{1,300}$/),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 600 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 120 }),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 200 }),
);

describe('qr matrix encoder on a random corpus', () => {
  it(
    `round-trips ${CORPUS_SIZE} random payloads at every ` + `error correction level through ZXing, zbar and jsQR`,
    async () => {
      const samples = fc.sample(fc.tuple(payload, fc.constantFrom(...ERROR_CORRECTION_LEVELS)), {
        numRuns: CORPUS_SIZE,
        seed: 20261122,
      });
      const fitting = samples.filter(([text, ecl]) => Buffer.byteLength(text) <= BYTE_CAPACITY[ecl]);
      const images = fitting.map(([text, errorCorrection]) => ({
        bytes: renderImage({
          payload: text,
          format: 'png',
          size: 1024,
          margin: 4,
          errorCorrection,
          darkColor: '#000000ff',
          lightColor: '#ffffffff',
        }),
        format: 'png' as const,
      }));
      const decoded = await decodeImages(images);
      const failures = fitting.flatMap(([text, errorCorrection], i) =>
        READERS.every((reader) => decoded[i]![reader] === text)
          ? []
          : [`${JSON.stringify(text).slice(0, 80)} at ${errorCorrection}: ${JSON.stringify(decoded[i]).slice(0, 200)}`],
      );
      expect(fitting.length).toBeGreaterThan(CORPUS_SIZE * 0.9);
      expect(failures).toEqual([]);
    },
    120_000,
  );
});
