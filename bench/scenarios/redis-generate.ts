// Rows g-c and g-d: scenarios c and d in Redis mode (metering and the key cache in Redis).
import { body, GENERATE_PATH, measureRow, withRedis, withService, type BenchScenario } from '../harness.js';
import { rotatingKey } from '../load.js';

export const redisGenerateScenario: BenchScenario = {
  ids: ['redis', 'g-c', 'g-d'],
  run: async () => {
    const rows = await withRedis((url) =>
      withService({ REDIS_URL: url }, async (service) => {
        const headers = rotatingKey(service.keys);
        return [
          await measureRow(
            'g-c',
            'ours, PNG, unique content, Redis mode',
            service.server,
            GENERATE_PATH,
            headers,
            body('png', true),
          ),
          await measureRow(
            'g-d',
            'ours, PNG, repeated content, Redis mode',
            service.server,
            GENERATE_PATH,
            headers,
            body('png', false),
          ),
        ];
      }),
    );
    return { rows: rows ?? [] };
  },
};
