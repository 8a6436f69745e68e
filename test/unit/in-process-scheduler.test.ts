// The embedded runner of the background jobs: runs each on its schedule, never two runs of one job at once, and a final run at stop.
import { describe, expect, it } from 'vitest';
import { InProcessScheduler } from '../../src/adapters/queue/in-process-scheduler.js';
import type { JobName, RunnableJob } from '../../src/services/background-jobs.js';

function job(name: JobName, run: () => Promise<unknown>): RunnableJob {
  return { name, pattern: '* * * * *', run };
}

describe('InProcessScheduler', () => {
  it('runs a job on its interval, one run at a time, and once more on stop', async () => {
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const scheduler = new InProcessScheduler(
      [
        job('last-used-flush', async () => {
          runs++;
          maxConcurrent = Math.max(maxConcurrent, ++concurrent);
          await new Promise((r) => setTimeout(r, 30));
          concurrent--;
        }),
      ],
      { everyMs: { 'last-used-flush': 10 }, runOnStop: ['last-used-flush'] },
    );
    scheduler.start();
    await new Promise((r) => setTimeout(r, 200));
    const beforeStop = runs;
    await scheduler.stop();
    expect(beforeStop).toBeGreaterThanOrEqual(3);
    expect(runs).toBe(beforeStop + 1);
    expect(maxConcurrent).toBe(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(runs).toBe(beforeStop + 1);
  });

  it('keeps going after a failed run', async () => {
    let runs = 0;
    const scheduler = new InProcessScheduler(
      [
        job('usage-rollup', async () => {
          runs++;
          throw new Error('store down');
        }),
      ],
      { everyMs: { 'usage-rollup': 10 } },
    );
    scheduler.start();
    await new Promise((r) => setTimeout(r, 100));
    await scheduler.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
  });

  it('joins a run in progress instead of starting a second one', async () => {
    let runs = 0;
    const scheduler = new InProcessScheduler([
      job('period-close', async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 20));
        return runs;
      }),
    ]);
    expect(await Promise.all([scheduler.runNow('period-close'), scheduler.runNow('period-close')])).toEqual([1, 1]);
    await scheduler.stop();
  });
});
