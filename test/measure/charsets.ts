// Measures each way of writing text (charset, ECI, Kanji mode) against ZXing, zbar and jsQR: the figures behind
// docs/charsets.md.
// Run: npx tsx test/measure/charsets.ts [payloads per class, default 60]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseSymbol, ENCODINGS, symbolIn, type EncodingName } from '../../src/render/qr-encoding.js';
import { layoutFor } from '../../src/render/layout.js';
import { writePng } from '../../src/render/png-writer.js';
import { drawSymbol } from '../../src/render/qr-matrix.js';
import type { SymbolContent } from '../../src/render/qr-codewords.js';
import { decodePngFiles, READERS } from '../helpers/decode.js';
import { textClasses } from '../helpers/text-corpus.js';

const PER_CLASS = Number(process.argv[2] ?? 60);
const ORDER: Array<EncodingName | 'policy'> = [
  'policy',
  'utf8',
  'utf8+eci',
  'latin1',
  'latin1+eci',
  'kanji+ascii',
  'kanji+shift_jis',
];

async function png(content: SymbolContent, path: string): Promise<void> {
  const matrix = drawSymbol(content);
  const layout = layoutFor(matrix, 4 * (matrix.size + 8), 4);
  await writeFile(path, writePng(matrix, layout, '#000000ff', '#ffffffff'));
}

const dir = await mkdtemp(join(tmpdir(), 'qrm-charsets-'));
try {
  const rows: string[] = [];
  for (const [name, texts] of Object.entries(textClasses(PER_CLASS))) {
    for (const encoding of ORDER) {
      const symbols = texts.map((text) => {
        const codePoints = Array.from(text, (ch) => ch.codePointAt(0)!);
        return encoding === 'policy'
          ? chooseSymbol(text, 'medium', { eci: false })
          : symbolIn(codePoints, 'medium', [ENCODINGS[encoding]]);
      });
      const carried = texts.flatMap((text, i) => (symbols[i] ? [{ text, symbol: symbols[i] }] : []));
      if (carried.length === 0) continue;
      const paths = carried.map((_, i) => join(dir, `${name}-${encoding}-${i}.png`.replaceAll(' ', '_')));
      await Promise.all(carried.map(({ symbol }, i) => png(symbol, paths[i]!)));
      const decoded = await decodePngFiles(paths);
      const exact = READERS.map((reader) => decoded.filter((d, i) => d[reader] === carried[i]!.text).length);
      const all = decoded.filter((d, i) => READERS.every((reader) => d[reader] === carried[i]!.text)).length;
      const meanVersion = carried.reduce((sum, c) => sum + c.symbol.version, 0) / carried.length;
      rows.push(
        `| ${name} | ${encoding} | ${carried.length}/${texts.length} | ${exact.join(' | ')} | **${all}** | ` +
          `${meanVersion.toFixed(2)} |`,
      );
    }
  }
  console.log(`| text | encoding | carries | ${READERS.join(' | ')} | all three | mean version (M) |`);
  console.log(`|---|---|---|${READERS.map(() => '---|').join('')}---|---|`);
  console.log(rows.join('\n'));
} finally {
  await rm(dir, { recursive: true, force: true });
}
