// The codeword placement and Reed–Solomon block layout the shared scan verdict relies on, against segno's
// (python3-segno), versions 1–40.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CORRECTION_LEVELS } from '../../src/domain/render-options.js';
import {
  blockOfCodewords,
  codewordOfModules,
  codewordsTouchedPerBlock,
  correctableErrorsPerBlock,
} from '../../src/render/qr-codeword-map.js';

interface SegnoVersion {
  /** [row][column]: the codeword whose bit the module holds, -1 for none. */
  modules: number[][];
  blocks: Record<string, number[]>;
  ecPerBlock: Record<string, number[]>;
}

const VERSIONS = Array.from({ length: 40 }, (_, i) => i + 1);
let segno: Record<string, SegnoVersion>;

beforeAll(async () => {
  const script = fileURLToPath(new URL('../helpers/segno-codeword-map.py', import.meta.url));
  segno = await new Promise((resolve, reject) => {
    const child = execFile(
      '/usr/bin/python3',
      [script],
      { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as Record<string, SegnoVersion>)),
    );
    child.stdin!.end(JSON.stringify(VERSIONS));
  });
}, 60_000);

describe('codeword map', () => {
  it('places every codeword on the modules segno places it on, versions 1–40', () => {
    for (const version of VERSIONS) {
      const ours = Array.from(codewordOfModules(version));
      expect(ours, `version ${version}`).toEqual(segno[version]!.modules.flat());
    }
  });

  it('assigns every codeword to the Reed–Solomon block segno interleaves it from, at every level', () => {
    for (const version of VERSIONS)
      for (const level of ERROR_CORRECTION_LEVELS)
        expect(Array.from(blockOfCodewords(version, level)), `${version}-${level}`).toEqual(
          segno[version]!.blocks[level],
        );
  });

  it(
    'corrects ⌊ec/2⌋ codewords a block (less the misdecode ' + 'protection of versions 1–3), with segno’s ec counts',
    () => {
      for (const version of VERSIONS)
        for (const level of ERROR_CORRECTION_LEVELS) {
          const ec = new Set(segno[version]!.ecPerBlock[level]);
          expect(ec.size).toBe(1); // every block of a symbol has as many ec codewords
          const p =
            version === 1
              ? { L: 3, M: 2, Q: 1, H: 1 }[level]
              : version === 2 && level === 'L'
                ? 2
                : version === 3 && level === 'L'
                  ? 1
                  : 0;
          expect(correctableErrorsPerBlock(version, level), `${version}-${level}`).toBe(
            Math.floor(([...ec][0]! - p) / 2),
          );
        }
    },
  );

  it('counts a codeword under a square once per block, however many of its modules the square holds', () => {
    for (const [version, level, start, side] of [
      [5, 'Q', 14, 9],
      [7, 'H', 16, 13],
      [10, 'M', 22, 15],
      [25, 'H', 40, 39],
    ] as const) {
      const { modules, blocks } = segno[version]!;
      const touched = new Set<number>();
      for (let y = start; y < start + side; y++)
        for (let x = start; x < start + side; x++) if (modules[y]![x]! >= 0) touched.add(modules[y]![x]!);
      const perBlock = new Array<number>(Math.max(...blocks[level]!) + 1).fill(0);
      for (const codeword of touched) perBlock[blocks[level]![codeword]!]!++;
      expect(codewordsTouchedPerBlock(version, level, { start, side })).toEqual(perBlock);
    }
  });
});
