// Pins each private part of `qr` our encoder relies on (src/render/qr-internals.ts) against segno (python3-segno) and
// the worked example of ISO/IEC 18004 Annex I: an upgrade of `qr` that changes one fails here, by name.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  blockShape,
  drawPlacementModules,
  drawSymbolModules,
  gf256,
  reedSolomonRemainder,
  totalCodewords,
  type EccName,
} from '../../src/render/qr-internals.js';

/** The `qr` release every check below was made against; a different one must be checked again before it lands. */
const CHECKED_QR_VERSION = '0.7.0';
const ROOT = join(import.meta.dirname, '..', '..');
const LEVELS: Record<'L' | 'M' | 'Q' | 'H', EccName> = { L: 'low', M: 'medium', Q: 'quartile', H: 'high' };

/** ISO/IEC 18004 Annex I: "01234567" as version 1-M, its data codewords and their error correction. */
const ANNEX_I_DATA = [0x10, 0x20, 0x0c, 0x56, 0x61, 0x80, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11];
const ANNEX_I_ECC = [0xa5, 0x24, 0xd4, 0xc1, 0xed, 0x36, 0xc7, 0x87, 0x2c, 0x55];

/** Error correction lengths the standard's blocks use, and a block of data for each (deterministic bytes). */
const ECC_LENGTHS = [7, 10, 13, 15, 16, 17, 18, 20, 22, 24, 26, 28, 30];
const blockFor = (count: number) => Array.from({ length: 40 + count }, (_, i) => (i * 37 + count * 11) & 0xff);

/** [text, version, level, mask]: every mask at 1-M; version information from version 7; every level; the largest. */
const SYMBOLS: Array<[string, number, keyof typeof LEVELS, number]> = [
  ...Array.from({ length: 8 }, (_, mask) => ['01234567', 1, 'M', mask] as [string, number, 'M', number]),
  ['https://example.com/a', 2, 'L', 5],
  ['https://example.com/version-seven', 7, 'Q', 3],
  ['x'.repeat(150), 14, 'H', 6],
  ['y'.repeat(900), 27, 'M', 1],
  ['z'.repeat(1200), 40, 'H', 4],
];

interface Segno {
  tables: Record<string, Record<string, { total: number; blocks: number; eccPerBlock: number }>>;
  exp: number[];
  log: number[];
  remainders: Array<{ generator: number[]; ecc: number[] }>;
  symbols: Array<{ codewords: number[]; modules: number[][] }>;
}
let segno: Segno;

beforeAll(async () => {
  const script = fileURLToPath(new URL('../helpers/segno-internals.py', import.meta.url));
  const request = { remainders: ECC_LENGTHS.map((count) => [blockFor(count), count]), symbols: SYMBOLS };
  segno = await new Promise((resolve, reject) => {
    const child = execFile(
      '/usr/bin/python3',
      [script],
      { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as Segno)),
    );
    child.stdin!.end(JSON.stringify(request));
  });
}, 60_000);

const rows = ({ size, modules }: { size: number; modules: Uint8Array }) =>
  Array.from({ length: size }, (_, y) => Array.from(modules.subarray(y * size, (y + 1) * size)));

/**
 * Format information (both copies, with the dark module; not the timing modules they cross) and, from version 7,
 * version information (§7.9, §7.10).
 */
function isInformation(x: number, y: number, version: number): boolean {
  const size = 17 + 4 * version;
  const format = (x === 8 && y !== 6 && (y <= 8 || y >= size - 8)) || (y === 8 && x !== 6 && (x <= 8 || x >= size - 8));
  const versionArea =
    version >= 7 && ((x >= size - 11 && x < size - 8 && y < 6) || (y >= size - 11 && y < size - 8 && x < 6));
  return format || versionArea;
}

describe('qr internals', () => {
  it(`are those of qr ${CHECKED_QR_VERSION}, the exact version package.json pins and node_modules holds`, () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'qr', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect({ pinned: manifest.dependencies.qr, installed: installed.version }).toEqual({
      pinned: CHECKED_QR_VERSION,
      installed: CHECKED_QR_VERSION,
    });
  });

  it('count codewords, blocks and error correction per block as ISO/IEC 18004 tables 1 and 9, versions 1–40', () => {
    for (let version = 1; version <= 40; version++)
      for (const [letter, level] of Object.entries(LEVELS)) {
        const { total, blockCount, eccPerBlock } = blockShape(version, level);
        const ours = { total, blocks: blockCount, eccPerBlock };
        expect(ours, `${version}-${letter}`).toEqual(segno.tables[version]![letter]);
      }
    expect([totalCodewords(1), totalCodewords(40)]).toEqual([26, 3706]);
  });

  it('compute in GF(256) over 0x11d: exp and log tables as segno has them, exp doubled for sums of logs', () => {
    expect(Array.from(gf256.exp)).toEqual(segno.exp);
    expect(Array.from(gf256.log).slice(1)).toEqual(segno.log.slice(1));
    expect([gf256.exp[8], gf256.exp[255], gf256.log[2]]).toEqual([0x1d, 1, 1]);
  });

  it("compute a block's error correction as Annex I's worked example and as segno, for each length in use", () => {
    const annexGenerator = Uint8Array.from(segno.remainders[ECC_LENGTHS.indexOf(10)]!.generator);
    expect(Array.from(reedSolomonRemainder(Uint8Array.from(ANNEX_I_DATA), annexGenerator))).toEqual(ANNEX_I_ECC);
    ECC_LENGTHS.forEach((count, i) => {
      const { generator, ecc } = segno.remainders[i]!;
      const ours = reedSolomonRemainder(Uint8Array.from(blockFor(count)), Uint8Array.from(generator));
      expect(Array.from(ours), `${count} error correction codewords`).toEqual(ecc);
    });
  });

  it('draw the symbol segno draws from the same codewords and mask: placement, masks, format, version bits', () => {
    SYMBOLS.forEach(([text, version, letter, mask], i) => {
      const { codewords, modules } = segno.symbols[i]!;
      const drawn = drawSymbolModules(version, LEVELS[letter], Uint8Array.from(codewords), mask);
      expect(rows(drawn), `${text.slice(0, 12)} ${version}-${letter} mask ${mask}`).toEqual(modules);
    });
  });

  it('choose, without a mask given, one of the eight masks (the least penalty) and draw it whole', () => {
    SYMBOLS.filter(([, version]) => version > 1).forEach(([, version, letter], i) => {
      const codewords = Uint8Array.from(segno.symbols[i + 8]!.codewords);
      const chosen = rows(drawSymbolModules(version, LEVELS[letter], codewords));
      const candidates = Array.from({ length: 8 }, (_, mask) =>
        rows(drawSymbolModules(version, LEVELS[letter], codewords, mask)),
      );
      expect(candidates).toContainEqual(chosen);
    });
  });

  it('place codewords under mask 0 with the format and version areas and the dark module light', () => {
    for (const i of [0, 10, 11, 12]) {
      const [text, version, letter] = SYMBOLS[i]!;
      const codewords = Uint8Array.from(segno.symbols[i]!.codewords);
      const full = rows(drawSymbolModules(version, LEVELS[letter], codewords, 0));
      const expected = full.map((row, y) => row.map((dark, x) => (isInformation(x, y, version) ? 0 : dark)));
      expect(rows(drawPlacementModules(version, codewords)), `${text.slice(0, 12)} ${version}`).toEqual(expected);
    }
  });

  it('hand back modules of their own: a later draw does not change an earlier one', () => {
    const first = drawSymbolModules(1, 'medium', Uint8Array.from(segno.symbols[0]!.codewords), 0);
    const copy = Uint8Array.from(first.modules);
    drawSymbolModules(1, 'medium', Uint8Array.from(segno.symbols[1]!.codewords), 1);
    drawPlacementModules(1, new Uint8Array(26).fill(0xff));
    expect(first.modules).toEqual(copy);
  });
});
