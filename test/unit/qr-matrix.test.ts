// Our codewords over `qr`'s symbol drawing: identical to `qr`'s own encoder where both encode one segment, and Kanji
// mode read back by zbar and ZXing for every character it carries.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import encodeQR from 'qr';
import { describe, expect, it } from 'vitest';
import { ERROR_CORRECTION_LEVELS } from '../../src/domain/render-options.js';
import { buildKanjiTable } from '../../src/render/kanji-table.js';
import { chooseSymbol } from '../../src/render/qr-encoding.js';
import { buildMatrix } from '../../src/render/qr-matrix.js';
import { renderImage } from '../../src/render/render-image.js';
import { decodePngFiles, readByAll } from '../helpers/decode.js';

const ECC_NAMES = { L: 'low', M: 'medium', Q: 'quartile', H: 'high' } as const;

describe('buildMatrix', () => {
  it('draws exactly the symbol `qr` draws for one-segment payloads, from version 1 to 40', () => {
    for (const payload of [
      'hello world',
      '0123456789012345',
      'HELLO WORLD 123',
      'https://example.com/path?q=1',
      'x'.repeat(1000),
      '9'.repeat(3000),
      'AB'.repeat(700),
    ]) {
      for (const level of ERROR_CORRECTION_LEVELS) {
        const ours = buildMatrix(payload, level);
        const rows = encodeQR(payload, 'raw', { ecc: ECC_NAMES[level], border: 1 });
        const theirs = rows.slice(1, -1).flatMap((row) => row.slice(1, -1).map((dark) => (dark ? 1 : 0)));
        expect(ours.size).toBe(rows.length - 2);
        expect(Array.from(ours.modules)).toEqual(theirs);
      }
    }
  });

  it('splits text into the cheapest modes: Kanji beside digits, numeric runs inside URLs', () => {
    const modes = (text: string) => chooseSymbol(text, 'medium', { eci: false })!.segments.map((s) => s.mode);
    expect(modes('東京2024年')).toEqual(['kanji', 'numeric', 'kanji']);
    expect(modes('https://example.com/p/12345678901234567890')).toEqual(['byte', 'numeric']);
    // Text beyond ASCII that Kanji mode cannot carry is UTF-8 behind ECI 26, whatever `eci` says; with it, Japanese
    // too.
    expect(chooseSymbol('café crème', 'medium', { eci: false })).toMatchObject({ charset: 'utf8', eci: 26 });
    expect(chooseSymbol('東京 café', 'medium', { eci: false })).toMatchObject({ charset: 'utf8', eci: 26 });
    expect(chooseSymbol('東京2024年', 'medium', { eci: false })!.eci).toBeUndefined();
    expect(chooseSymbol('東京2024年', 'medium', { eci: true })).toMatchObject({ charset: 'utf8', eci: 26 });
    expect(chooseSymbol('plain ascii', 'medium', { eci: true })!.eci).toBeUndefined();
  });
});

describe('Kanji mode', () => {
  it('is read back by zbar, ZXing and jsQR as the very character, for each of the 6,872 it carries', async () => {
    const characters = Array.from(buildKanjiTable().keys(), (c) => String.fromCodePoint(c));
    expect(characters.length).toBe(6872);
    const chunks: string[] = [];
    for (let i = 0; i < characters.length; i += 600) chunks.push(characters.slice(i, i + 600).join(''));
    const dir = await mkdtemp(join(tmpdir(), 'qrm-kanji-'));
    try {
      const paths = await Promise.all(
        chunks.map(async (text, i) => {
          expect(chooseSymbol(text, 'low', { eci: false })!.segments.map((s) => s.mode)).toEqual(['kanji']);
          const path = join(dir, `${i}.png`);
          await writeFile(
            path,
            await renderImage({
              payload: text,
              format: 'png',
              size: 4 * 165,
              margin: 4,
              errorCorrection: 'L',
              darkColor: '#000000ff',
              lightColor: '#ffffffff',
            }),
          );
          return path;
        }),
      );
      const decoded = await decodePngFiles(paths);
      decoded.forEach((read, i) => expect(read).toEqual(readByAll(chunks[i]!)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
