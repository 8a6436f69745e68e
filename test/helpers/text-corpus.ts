// Text corpora by class (Japanese, Latin-1, ASCII with digits, URLs, other Unicode, mixed), drawn reproducibly by
// fast-check seeds.
import fc from 'fast-check';

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
const ASCII_WORDS = [
  'the',
  'Order',
  'invoice',
  'for',
  'ACME',
  'Ltd',
  'Ref',
  'at',
  'and',
  'Tel',
  'Room',
  'Serial',
  'PAID',
  'due',
  'NO',
  'x',
];
const OTHER_UNICODE = ['Привет мир', '😀 party', '€ 12,50', 'Ελληνικά', 'שלום', '你好世界', '한국어', 'naïve € café'];

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const phrase = (words: string[], pieces: fc.Arbitrary<string>[] = []) =>
  fc.array(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...words) }, ...pieces.map((p) => ({ weight: 1, arbitrary: p }))),
    { minLength: 1, maxLength: 14 },
  );

const japanese = phrase(JAPANESE, [
  digits(1, 12),
  fc.constantFrom(...ASCII_WORDS),
  fc.constant('https://example.jp/shop?id='),
]).map((parts) => parts.join(''));
const latin1 = phrase(LATIN1, [digits(1, 10), fc.constantFrom(...ASCII_WORDS)]).map((parts) => parts.join(' '));
const mixed = fc.oneof(
  fc
    .tuple(fc.constantFrom(...ASCII_WORDS), digits(4, 24), fc.constantFrom(...ASCII_WORDS), digits(0, 16))
    .map((p) => p.join(' ')),
  fc
    .tuple(fc.stringMatching(/^[A-Z]{2,6}$/), digits(4, 20), fc.stringMatching(/^[A-Z0-9]{0,8}$/))
    .map((p) => p.join('-')),
  fc
    .tuple(digits(2, 3), digits(3, 4), digits(4, 6), fc.constantFrom(...ASCII_WORDS))
    .map(([a, b, c, w]) => `Tel +${a} ${b} ${c} ${w}`),
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
export const CORPUS = [
  ...sample(japanese, 90, 1),
  ...sample(latin1, 80, 2),
  ...sample(mixed, 70, 3),
  ...sample(url, 70, 4),
  ...sample(other, 20, 5),
];

/** Text mixing the classes in one payload: Latin-1 and Japanese, emoji and ASCII, Cyrillic and Kanji. */
const mixedScripts = fc
  .array(fc.constantFrom(...LATIN1, ...JAPANESE, ...OTHER_UNICODE, ...ASCII_WORDS), { minLength: 2, maxLength: 8 })
  .filter(
    (parts) =>
      parts.some((p) => JAPANESE.includes(p)) &&
      parts.some((p) => !JAPANESE.includes(p) && [...p].some((ch) => ch.codePointAt(0)! > 0x7f)),
  )
  .map((parts) => parts.join(' '));

/** The classes docs/charsets.md measures, each drawn from its own seed. */
export function textClasses(
  perClass: number,
): Record<'ASCII' | 'Latin-1' | 'Japanese' | 'other Unicode' | 'mixed', string[]> {
  return {
    ASCII: [...sample(mixed, Math.ceil(perClass / 2), 13), ...sample(url, Math.floor(perClass / 2), 14)],
    'Latin-1': sample(latin1, perClass, 12),
    Japanese: sample(japanese, perClass, 11),
    'other Unicode': sample(other, perClass, 15),
    mixed: sample(mixedScripts, perClass, 16),
  };
}
