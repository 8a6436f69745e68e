// Rows c-pool, c-thread and c-inline: scenario c with the render routing changed, to show each routing layer pays for
// itself.
import {
  body,
  DURATION,
  GENERATE_PATH,
  LOAD,
  measureRow,
  ourService,
  stopService,
  WARMUP,
  withService,
  type BenchScenario,
  type Service,
} from '../harness.js';
import { rotatingKey } from '../load.js';
import { sideBySide, type Side } from '../side-by-side.js';
import { SIDE_BY_SIDE_SLICES } from './generate.js';

/** Scenario c with every render its own pool task: the grouping of small renders, measured in this run. */
export const everyRenderOnPoolScenario: BenchScenario = {
  ids: ['c-pool'],
  run: async () => ({
    rows: [
      await withService({ RENDER_INLINE_MAX_PIXELS: '0' }, (pooled) =>
        measureRow(
          'c-pool',
          'ours, PNG, unique content, every render its own Piscina task',
          pooled.server,
          GENERATE_PATH,
          rotatingKey(pooled.keys),
          body('png', true),
        ),
      ),
    ],
  }),
};

const side = (id: string, name: string, service: Service): Side => ({
  id,
  name,
  server: service.server,
  url: `http://127.0.0.1:${service.server.port}${GENERATE_PATH}`,
  headersFor: rotatingKey(service.keys),
  makeBody: body('png', true),
});

/** Small renders on a free thread against on the event loop: close enough that only turn about tells them apart. */
export const threadBesideInlineScenario: BenchScenario = {
  ids: ['c-inline'],
  run: async () => {
    const services = await Promise.all([
      ourService({ RENDER_SMALL_ON_POOL: 'true' }),
      ourService({ RENDER_SMALL_ON_POOL: 'branded' }),
    ]);
    try {
      const rows = await sideBySide(
        [
          side(
            'c-thread',
            'ours, PNG, unique content, small renders grouped onto a free thread (RENDER_SMALL_ON_POOL=true)',
            services[0],
          ),
          side(
            'c-inline',
            'ours, PNG, unique content, small renders drawn on the event loop (the default)',
            services[1],
          ),
        ],
        DURATION,
        WARMUP,
        SIDE_BY_SIDE_SLICES,
        LOAD,
      );
      return { rows };
    } finally {
      for (const service of services) await stopService(service);
    }
  },
};
