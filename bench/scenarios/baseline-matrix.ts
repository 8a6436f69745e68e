// Rows e and e-qr turn about: the best-possible inline render with our matrix against `qr`'s own encoder, to keep the
// faster one as the limit c is held to.
import { body, DURATION, LOAD, WARMUP, withBaseline, type BenchScenario } from '../harness.js';
import { sideBySide, type Side } from '../side-by-side.js';
import type { Started } from '../processes.js';
import { E_NAME } from './baselines.js';
import { SIDE_BY_SIDE_SLICES } from './generate.js';

const side = (id: string, name: string, server: Started): Side => ({
  id,
  name,
  server,
  url: `http://127.0.0.1:${server.port}/generate`,
  headersFor: () => ({}),
  makeBody: body('png', true),
});

export const baselineMatrixScenario: BenchScenario = {
  ids: ['e-qr'],
  optIn: true,
  run: async () =>
    withBaseline('best-inline.js', (ours) =>
      withBaseline('qr-own-inline.js', async (qrOwn) => ({
        rows: await sideBySide(
          [
            side('e', E_NAME, ours),
            side('e-qr', "inline render on qr's own encoder (encodeQR), 1-bit PNG, zlib 1, no auth or metering", qrOwn),
          ],
          DURATION,
          WARMUP,
          SIDE_BY_SIDE_SLICES,
          LOAD,
        ),
      })),
    ),
};
