// Runs the background jobs inside the API process (the embedded default): the same processors and cron patterns as the
// jobs process (BullMQ).
// cron-parser is what BullMQ's own repeat strategy uses; loading it alone spares the embedded default loading BullMQ
// and ioredis.
import { createRequire } from 'node:module';
import type CronParser from 'cron-parser';
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

/**
 * Jobs on a cron pattern are armed this long after start(): cron-parser and luxon (which resolves the system's time
 * zones on first use) load then, not on the server's start path. Their first due time is still counted from start().
 */
export const CRON_ARM_DELAY_MS = 1_000;

const load = createRequire(import.meta.url);

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
    const startedAt = Date.now();
    const onPattern: string[] = [];
    for (const name of this.#jobs.keys()) {
      if (this.#everyMs[name] === undefined) onPattern.push(name);
      else this.#arm(name);
    }
    if (onPattern.length === 0) return;
    const timer = setTimeout(() => {
      for (const name of onPattern) this.#arm(name, startedAt);
    }, CRON_ARM_DELAY_MS);
    timer.unref();
    this.#timers.set('cron patterns', timer);
  }

  /** Milliseconds until the job is next due: after its fixed interval, or its pattern's next time after `from`. */
  #nextDelay(job: RunnableJob, from: number): number {
    const fixed = this.#everyMs[job.name];
    if (fixed !== undefined) return fixed;
    const cronParser = load('cron-parser') as typeof CronParser;
    const next = cronParser
      .parseExpression(job.pattern, { currentDate: new Date(from), tz: 'UTC' })
      .next()
      .getTime();
    return Math.max(0, next - Date.now());
  }

  #arm(name: string, from = Date.now()): void {
    if (this.#stopped) return;
    const job = this.#jobs.get(name)!;
    const delay = this.#nextDelay(job, from);
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
