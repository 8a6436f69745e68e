// Row pair h-branded-thread / h-branded-inline: scenario h-branded with small branded renders on a free thread (the
// default with 2+ cores) against drawn on the event loop, turn about.
import { DURATION, GENERATE_PATH, LOAD, ourService, stopService, WARMUP, type BenchScenario } from '../harness.js';
import { sideBySide, type Side } from '../side-by-side.js';
import { brandedScenario } from './branded.js';
import { SIDE_BY_SIDE_SLICES } from './generate.js';

/** Branded renders cost several plain ones (shapes, logo, the scan check): whether their thread hop pays. */
export const brandedThreadBesideInlineScenario: BenchScenario = {
  ids: ['h-branded-inline'],
  optIn: true,
  run: async () => {
    const services = await Promise.all([
      ourService({ RENDER_SMALL_ON_POOL: 'branded' }),
      ourService({ RENDER_SMALL_ON_POOL: 'false' }),
    ]);
    try {
      const sides = await Promise.all(
        (
          [
            [
              'h-branded-thread',
              'ours, branded PNG as h-branded, small branded renders on a free thread (the default)',
            ],
            [
              'h-branded-inline',
              'ours, branded PNG as h-branded, drawn on the event loop (RENDER_SMALL_ON_POOL=false)',
            ],
          ] as const
        ).map(([id, name], i) =>
          brandedScenario<Side>(services[i]!, async (_id, _name, headersFor, makeBody) => ({
            id,
            name,
            server: services[i]!.server,
            url: `http://127.0.0.1:${services[i]!.server.port}${GENERATE_PATH}`,
            headersFor,
            makeBody,
          })),
        ),
      );
      return { rows: await sideBySide([sides[0]!, sides[1]!], DURATION, WARMUP, SIDE_BY_SIDE_SLICES, LOAD) };
    } finally {
      for (const service of services) await stopService(service);
    }
  },
};
