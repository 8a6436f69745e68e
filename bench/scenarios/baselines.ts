// Rows a, b and e: the baselines our service is compared with (a naive inline render, the HTTP ceiling, the best
// possible render).
import { body, measureRow, withBaseline, type BenchScenario } from '../harness.js';

export const E_NAME = 'best-possible inline render (qr matrix, 1-bit PNG, zlib 1), no auth or metering';

const BASELINES = [
  ['a', 'naive Fastify + qrcode.toBuffer inline (what a user would write)', 'naive-qrcode.js'],
  ['b', 'HTTP ceiling: the same Fastify answering a fixed PNG', 'fixed-png.js'],
  ['e', E_NAME, 'best-inline.js'],
] as const;

/**
 * One scenario per baseline; e runs here only when c does not (then the two run turn about,
 * bench/scenarios/generate.ts).
 */
export function baselineScenario(id: 'a' | 'b' | 'e', skip: () => boolean = () => false): BenchScenario {
  const [, name, script] = BASELINES.find(([row]) => row === id)!;
  return {
    ids: [id],
    run: async () =>
      skip()
        ? {}
        : {
            rows: [
              await withBaseline(script, (server) =>
                measureRow(id, name, server, '/generate', () => ({}), body('png', id !== 'b')),
              ),
            ],
          },
  };
}
