// Rows c, d, f-webp and f-svg: POST /generate through the whole service on the shared embedded service; c beside e turn
// about when both run.
import {
  body,
  DURATION,
  GENERATE_PATH,
  LOAD,
  measureRow,
  wanted,
  WARMUP,
  withBaseline,
  type BenchScenario,
} from '../harness.js';
import { rotatingKey } from '../load.js';
import { sideBySide } from '../side-by-side.js';
import { E_NAME } from './baselines.js';

export const C_NAME = 'ours, PNG, unique content, key check + metering (embedded SQLite)';
/** Slices of rows e and c, turn about: DURATION seconds each in all. */
export const SIDE_BY_SIDE_SLICES = 5;

/** c/e is a target: when both rows run, they run turn about (bench/side-by-side.ts), not a minute apart. */
export const eBesideC = () => wanted('e') && wanted('c');

const ROWS = [
  ['c', C_NAME, body('png', true)],
  ['d', 'ours, PNG, repeated content (embedded SQLite)', body('png', false)],
  ['f-webp', 'ours, WebP, unique content', body('webp', true)],
  ['f-svg', 'ours, SVG, unique content', body('svg', true)],
] as const;

export const generateScenario: BenchScenario = {
  ids: ['c', 'd', 'f-webp', 'f-svg'],
  run: async (context) => {
    const service = await context.embedded();
    const headers = rotatingKey(service.keys);
    const rows = [];
    if (eBesideC()) {
      rows.push(
        ...(await withBaseline('best-inline.js', (best) =>
          sideBySide(
            [
              {
                id: 'e',
                name: E_NAME,
                server: best,
                url: `http://127.0.0.1:${best.port}/generate`,
                headersFor: () => ({}),
                makeBody: body('png', true),
              },
              {
                id: 'c',
                name: C_NAME,
                server: service.server,
                url: `http://127.0.0.1:${service.server.port}${GENERATE_PATH}`,
                headersFor: headers,
                makeBody: body('png', true),
              },
            ],
            DURATION,
            WARMUP,
            SIDE_BY_SIDE_SLICES,
            LOAD,
          ),
        )),
      );
    }
    for (const [id, name, makeBody] of ROWS) {
      if (wanted(id) && !(id === 'c' && eBesideC()))
        rows.push(await measureRow(id, name, service.server, GENERATE_PATH, headers, makeBody));
    }
    return { rows };
  },
};
