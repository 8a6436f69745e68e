// Runs the background jobs inside the API process (the embedded default): the same processors and cron patterns as the
// jobs process (BullMQ).
// cron-parser is what BullMQ's own repeat strategy uses; importing it alone spares the embedded default loading BullMQ
// and ioredis.
import cronParser from 'cron-parser';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';
import type { RunnableJob } from '../../services/background-jobs.js';

export interface InProcessSchedulerOptions {
  log?: AdapterLog;
  /**
   * Fixed intervals replacing a job's cron pattern (the embedded default flushes last-used times every few seconds).
   */
  everyMs?: Partial<Record<string, number>>;
  /** Jobs run once more by stop(), after the timers are cleared (e.g. the last-used flush). */
  runOnStop?: readonly string[];
}

// setTimeout overflows past 2^31 - 1 ms (24.8 days); a monthly pattern is reached in hops of at most an hour.
const MAX_TIMER_MS = 60 * 60 * 1000;

export class InProcessScheduler {
  readonly #jobs: Map<string, RunnableJob>;
  readonly #log: AdapterLog;
  readonly #everyMs: Partial<Record<string, number>>;
  readonly #runOnStop: readonly string[];
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** One run per job at a time: a run still going when the next is due makes that one skip. */
  readonly #running = new Map<string, Promise<unknown>>();
  #stopped = false;

  constructor(jobs: readonly RunnableJob[], options: InProcessSchedulerOptions = {}) {
    this.#jobs = new Map(jobs.map((job) => [job.name, job]));
    this.#log = options.log ?? SILENT_LOG;
    this.#everyMs = options.everyMs ?? {};
    this.#runOnStop = options.runOnStop ?? [];
  }

  start(): void {
    for (const name of this.#jobs.keys()) this.#arm(name);
  }

  #nextDelay(job: RunnableJob): number {
    const fixed = this.#everyMs[job.name];
    if (fixed !== undefined) return fixed;
    const now = Date.now();
    const next = cronParser
      .parseExpression(job.pattern, { currentDate: new Date(now), tz: 'UTC' })
      .next()
      .getTime();
    return Math.max(0, next - now);
  }

  #arm(name: string): void {
    if (this.#stopped) return;
    const job = this.#jobs.get(name)!;
    const delay = this.#nextDelay(job);
    const hop = Math.min(delay, MAX_TIMER_MS);
    const timer = setTimeout(() => {
      if (hop < delay) return this.#arm(name);
      void this.runNow(name)
        .catch((err: unknown) =>
          this.#log.warn({ err, job: name }, 'background job failed; it runs again at its next time'),
        )
        .finally(() => this.#arm(name));
    }, hop);
    timer.unref();
    this.#timers.set(name, timer);
  }

  /** Runs a job now, or joins its run in progress. */
  runNow(name: string): Promise<unknown> {
    const job = this.#jobs.get(name);
    if (!job) return Promise.reject(new Error(`no background job named ${name}`));
    const running = this.#running.get(name);
    if (running) return running;
    const run = job.run().finally(() => this.#running.delete(name));
    this.#running.set(name, run);
    return run;
  }

  /** Clears the timers, waits for runs in progress, then runs the `runOnStop` jobs once more. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#running.values()]);
    for (const name of this.#runOnStop) {
      await this.runNow(name).catch((err: unknown) =>
        this.#log.warn({ err, job: name }, 'background job failed at shutdown'),
      );
    }
  }
}
