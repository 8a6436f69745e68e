// The embedded runner of the background jobs: runs each on its schedule, never two runs of one job at once, and a final
// run at stop.
// Pure timer logic: the test drives the timers and the clock (vi.useFakeTimers), so every run is at a known time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CRON_ARM_DELAY_MS, InProcessScheduler } from '../../src/adapters/queue/in-process-scheduler.js';
import type { JobName, RunnableJob } from '../../src/services/background-jobs.js';

function job(name: JobName, run: () => Promise<unknown>, pattern = '* * * * *'): RunnableJob {
  return { name, pattern, run };
}

const START = Date.UTC(2026, 10, 15, 12, 0, 0);
const elapsed = () => Date.now() - START;

describe('InProcessScheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a job on its interval, one run at a time, and once more on stop', async () => {
    const started: number[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const scheduler = new InProcessScheduler(
      [
        job('last-used-flush', async () => {
          started.push(elapsed());
          maxConcurrent = Math.max(maxConcurrent, ++concurrent);
          await new Promise((r) => setTimeout(r, 30)); // each run lasts longer than the interval
          concurrent--;
        }),
      ],
      { everyMs: { 'last-used-flush': 10 }, runOnStop: ['last-used-flush'] },
    );
    scheduler.start();
    await vi.advanceTimersByTimeAsync(200);
    // The next run is due 10 ms after the previous one ended, never while it runs.
    expect(started).toEqual([10, 50, 90, 130, 170]);
    expect(maxConcurrent).toBe(1);

    const stopping = scheduler.stop();
    await vi.advanceTimersByTimeAsync(30);
    await stopping;
    expect(started).toEqual([10, 50, 90, 130, 170, 200]);
    // Stopped: however much time passes, nothing runs again.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(started).toHaveLength(6);
    expect(maxConcurrent).toBe(1);
  });

  it('keeps going after a failed run', async () => {
    const started: number[] = [];
    const scheduler = new InProcessScheduler(
      [
        job('usage-rollup', async () => {
          started.push(elapsed());
          throw new Error('store down');
        }),
      ],
      { everyMs: { 'usage-rollup': 10 } },
    );
    scheduler.start();
    await vi.advanceTimersByTimeAsync(50);
    await scheduler.stop();
    expect(started).toEqual([10, 20, 30, 40, 50]);
  });

  it('runs a cron job at its next time on the clock, then at the one after', async () => {
    const started: string[] = [];
    const scheduler = new InProcessScheduler([
      job('period-close', async () => started.push(new Date().toISOString()), '0 0 1 * *'),
    ]);
    scheduler.start();
    // Mid-November to the first of December is longer than one timer may wait: the scheduler hops there.
    await vi.advanceTimersByTimeAsync(Date.UTC(2026, 11, 1) - START - 1);
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(['2026-12-01T00:00:00.000Z']);
    await vi.advanceTimersByTimeAsync(Date.UTC(2027, 0, 1) - Date.UTC(2026, 11, 1));
    expect(started).toEqual(['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    await scheduler.stop();
  });

  it("counts a cron job's first time from start(), though cron-parser loads a moment later", async () => {
    vi.setSystemTime(Date.UTC(2026, 10, 15, 12, 0, 59, 500));
    const started: string[] = [];
    const scheduler = new InProcessScheduler([job('usage-rollup', async () => started.push(new Date().toISOString()))]);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(499);
    expect(started).toEqual([]);
    // Due at 12:01:00 while the patterns were not armed yet: it runs as they are, not a minute late.
    await vi.advanceTimersByTimeAsync(CRON_ARM_DELAY_MS + 1);
    expect(started.map((at) => at.slice(0, 19))).toEqual(['2026-11-15T12:01:00']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(started.map((at) => at.slice(0, 19))).toEqual(['2026-11-15T12:01:00', '2026-11-15T12:02:00']);
    await scheduler.stop();
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
    const both = Promise.all([scheduler.runNow('period-close'), scheduler.runNow('period-close')]);
    await vi.advanceTimersByTimeAsync(20);
    expect(await both).toEqual([1, 1]);
    await scheduler.stop();
  });
});
