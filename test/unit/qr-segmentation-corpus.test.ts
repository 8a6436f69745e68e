// The segment planner against segno and libqrencode on 330 payloads: never a larger version where their code reads back, and every sampled image decodes exactly.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CORRECTION_LEVELS, type ErrorCorrectionLevel } from '../../src/domain/render-options.js';
import { chooseSymbol } from '../../src/render/qr-encoding.js';
import { renderImage } from '../../src/render/render-image.js';
import { decodePngFilesAsText } from '../helpers/decode.js';
import { referenceVersions, type ReferenceVersions } from '../helpers/reference-encoders.js';

const ECC_NAMES = { L: 'low', M: 'medium', Q: 'quartile', H: 'high' } as const;

const JAPANESE = [
  '東京',
  '大阪',
  '日本語',
  'こんにちは',
  'ありがとうございます',
  '株式会社',
  '電話',
  '予約',
  '渋谷区',
  '新宿駅',
  '番号',
  '会議室',
  '商品',
  '価格',
  '円',
  '注文',
  '確認',
  'お問い合わせ',
  'カタカナ',
  'ラーメン',
  '寿司',
  '地図',
  '住所',
  '〒150-0002',
  '丁目',
  '年',
  '月',
  '日',
  '時',
  '分',
  '「',
  '」',
  '、',
  '。',
  'ー',
  'ＡＢＣ',
  '１２３',
];
const LATIN1 = [
  'café',
  'crème brûlée',
  'Größe',
  'Straße',
  'naïve',
  'résumé',
  'São Paulo',
  'Zürich',
  'Ålesund',
  'español',
  'mañana',
  'niño',
  'über',
  'Bücher',
  'garçon',
  'déjà vu',
  'smörgåsbord',
  'Øresund',
  'Æble',
  'façade',
  'piñata',
  'Málaga',
  'Köln',
  'Münster',
  'Frère Jacques',
  'à la carte',
  'señor',
  'coração',
  'ação',
  '£20',
  '¿Qué?',
  '¡Hola!',
  '25°C',
  '½',
  '© 2024',
  'Ich möchte',
  'Dvořák'.replace('ř', 'r'),
];
const ASCII_WORDS = ['the', 'Order', 'invoice', 'for', 'ACME', 'Ltd', 'Ref', 'at', 'and', 'Tel', 'Room', 'Serial', 'PAID', 'due', 'NO', 'x'];
const OTHER_UNICODE = ['Привет мир', '😀 party', '€ 12,50', 'Ελληνικά', 'שלום', '你好世界', '한국어', 'naïve € café'];

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const phrase = (words: string[], pieces: fc.Arbitrary<string>[] = []) =>
  fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...words) }, ...pieces.map((p) => ({ weight: 1, arbitrary: p }))), { minLength: 1, maxLength: 14 });

const japanese = phrase(JAPANESE, [digits(1, 12), fc.constantFrom(...ASCII_WORDS), fc.constant('https://example.jp/shop?id=')]).map((parts) => parts.join(''));
const latin1 = phrase(LATIN1, [digits(1, 10), fc.constantFrom(...ASCII_WORDS)]).map((parts) => parts.join(' '));
const mixed = fc.oneof(
  fc.tuple(fc.constantFrom(...ASCII_WORDS), digits(4, 24), fc.constantFrom(...ASCII_WORDS), digits(0, 16)).map((p) => p.join(' ')),
  fc.tuple(fc.stringMatching(/^[A-Z]{2,6}$/), digits(4, 20), fc.stringMatching(/^[A-Z0-9]{0,8}$/)).map((p) => p.join('-')),
  fc.tuple(digits(2, 3), digits(3, 4), digits(4, 6), fc.constantFrom(...ASCII_WORDS)).map(([a, b, c, w]) => `Tel +${a} ${b} ${c} ${w}`),
);
const url = fc
  .tuple(
    fc.constantFrom('https://shop.example.com', 'http://example.org', 'https://t.example.io'),
    digits(6, 40),
    digits(4, 30),
    fc.stringMatching(/^[A-Za-z0-9]{0,12}$/),
  )
  .map(([host, a, b, ref]) => `${host}/p/${a}?id=${b}${ref ? `&ref=${ref}` : ''}`);
const other = phrase(OTHER_UNICODE, [digits(1, 8), fc.constantFrom(...ASCII_WORDS)]).map((parts) => parts.join(' '));

const sample = (arb: fc.Arbitrary<string>, count: number, seed: number) => fc.sample(arb, { numRuns: count, seed });
const CORPUS = [...sample(japanese, 90, 1), ...sample(latin1, 80, 2), ...sample(mixed, 70, 3), ...sample(url, 70, 4), ...sample(other, 20, 5)];

let dir: string;
let reference: ReferenceVersions;
const ours = CORPUS.map((payload) => ERROR_CORRECTION_LEVELS.map((level) => chooseSymbol(payload, ECC_NAMES[level], { eci: false })));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qrm-corpus-'));
  reference = await referenceVersions(CORPUS, ERROR_CORRECTION_LEVELS);
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function renderAll(cases: Array<{ payload: string; level: ErrorCorrectionLevel; eci: boolean }>, tag: string): Promise<string[]> {
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

describe('QR segmentation on a corpus of 330 payloads (Japanese, Latin-1, digits with text, URLs with long numbers)', () => {
  it('holds at least 300 distinct payloads, every one fitting at every level', () => {
    expect(new Set(CORPUS).size).toBeGreaterThanOrEqual(300);
    expect(ours.flat().every((symbol) => symbol !== undefined)).toBe(true);
  });

  it('never takes a larger version than segno or libqrencode, except where their code is misread by zbar or ZXing', async () => {
    const larger: Array<{ payload: string; level: ErrorCorrectionLevel; ours: number; segno: number; qrencode: number }> = [];
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
    // Where we are larger, the other encoders put the same bytes in ISO-8859-1 or Shift-JIS byte mode without
    // an ECI; segno's own image of each must then fail to read back in one of the two decoders.
    const segnoImages = larger.map(({ payload, level }, i) => [payload, level, join(dir, `segno-${i}.png`)] as [string, string, string]);
    if (segnoImages.length > 0) await referenceVersions([], [], segnoImages);
    const decoded = await decodePngFilesAsText(
      segnoImages.map(([, , path]) => path),
      'text',
    );
    const readBackExactly = larger.filter((c, i) => decoded[i]!.zbar === c.payload && decoded[i]!.zxing === c.payload);
    expect(readBackExactly).toEqual([]);
    expect(larger.length).toBeLessThan(CORPUS.length * 0.1);
  }, 120_000);

  it('decodes exactly with zbar and ZXing: every Kanji and ISO-8859-1 code, and a random sample of the rest', async () => {
    const cases = CORPUS.flatMap((payload, p) => {
      const level = ERROR_CORRECTION_LEVELS[p % 4]!;
      const symbol = ours[p]![p % 4]!;
      const special = symbol.charset === 'latin1' || symbol.kanji !== undefined;
      return special || p % 5 === 0 ? [{ payload, level, eci: false, utf8: symbol.charset === 'utf8' }] : [];
    });
    expect(cases.filter((c) => !c.utf8).length).toBeGreaterThan(100);
    const paths = await renderAll(cases, 'ours');
    const text = await decodePngFilesAsText(paths, 'text');
    const binary = await decodePngFilesAsText(
      paths.filter((_, i) => cases[i]!.utf8),
      'binary',
    );
    const zbarRead = (i: number) => (cases[i]!.utf8 ? binary[cases.slice(0, i).filter((c) => c.utf8).length]!.zbar : text[i]!.zbar);
    const failures = cases.flatMap((c, i) =>
      text[i]!.zxing !== c.payload || zbarRead(i) !== c.payload ? [{ ...c, zxing: text[i]!.zxing, zbar: zbarRead(i) }] : [],
    );
    expect(failures).toEqual([]);
  }, 120_000);

  it('with eci: true, zbar reads UTF-8 text exactly in text mode too', async () => {
    // eslint-disable-next-line no-control-regex -- every byte outside ASCII, NUL included in the range
    const cases = CORPUS.filter((payload) => /[^\x00-\x7f]/.test(payload))
      .filter((_, i) => i % 8 === 0)
      .map((payload) => ({ payload, level: 'M' as const, eci: true }));
    expect(cases.length).toBeGreaterThan(20);
    const decoded = await decodePngFilesAsText(await renderAll(cases, 'eci'), 'text');
    expect(cases.filter((c, i) => decoded[i]!.zbar !== c.payload || decoded[i]!.zxing !== c.payload)).toEqual([]);
  }, 60_000);
});
