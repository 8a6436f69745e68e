// Guard: every regular expression in src/ is checked by recheck for super-linear backtracking (ReDoS); a new one cannot
// slip past.
import { fileURLToPath } from 'node:url';
import { check } from 'recheck';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contentEncoderFor, QR_TYPES } from '../../src/domain/content/index.js';
import { sourceRegexes } from '../helpers/source-regexes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REGEXES = sourceRegexes(ROOT);
// Generous: a busy machine must not turn a safe pattern into "unknown" (which fails the guard too).
const CHECK_TIMEOUT_MS = 15_000;

async function verdict(source: string, flags: string): Promise<string> {
  const diagnostics = await check(source, flags, { timeout: CHECK_TIMEOUT_MS, randomSeed: 1 });
  if (diagnostics.status === 'vulnerable')
    return (
      `vulnerable (${diagnostics.complexity.summary}), e.g. ` +
      `${JSON.stringify(diagnostics.attack.string.slice(0, 40))}…`
    );
  return diagnostics.status;
}

describe('regular expressions in src/', () => {
  it('are all found: literals, zod .regex() arguments and RegExp constructors', () => {
    // A floor, not an exact count: the point is that the scan sees the files it should.
    expect(REGEXES.length).toBeGreaterThan(30);
    expect(REGEXES.map((regex) => regex.where)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^src\/domain\/content\/phone-number\.ts:/)]),
    );
  });

  it('are all literals, so the checker sees every pattern (no RegExp built from a variable)', () => {
    expect(
      REGEXES.filter((regex) => regex.dynamic !== undefined).map((regex) => `${regex.where}: ${regex.dynamic}`),
    ).toEqual([]);
  });

  it('are all linear: recheck finds no super-linear backtracking in any of them', { timeout: 600_000 }, async () => {
    const unsafe: string[] = [];
    for (const regex of REGEXES.filter((found) => found.dynamic === undefined)) {
      const status = await verdict(regex.source, regex.flags);
      if (status !== 'safe') unsafe.push(`${regex.where} /${regex.source}/${regex.flags}: ${status}`);
    }
    expect(unsafe).toEqual([]);
  });

  it('and the patterns zod applies for us in the content schemas (z.email and friends) are linear too', async () => {
    const patterns = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node !== null && typeof node === 'object') {
        for (const [name, value] of Object.entries(node)) {
          if (name === 'pattern' && typeof value === 'string') patterns.add(value);
          else collect(value);
        }
      }
    };
    for (const type of QR_TYPES) {
      const schema = contentEncoderFor(type).objectSchema;
      if (schema) collect(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
    }
    expect(patterns.size).toBeGreaterThan(0);
    const unsafe: string[] = [];
    for (const pattern of patterns) {
      const status = await verdict(pattern, 'u');
      if (status !== 'safe') unsafe.push(`/${pattern}/: ${status}`);
    }
    expect(unsafe).toEqual([]);
  });

  it('the checker does catch the quadratic vcard phone pattern this guard was written for', async () => {
    expect(await verdict(String.raw`^\+?[\d\s().\-/]*\d[\d\s().\-/]*$`, '')).toMatch(
      /^vulnerable \(2nd degree polynomial\)/,
    );
  });
});
