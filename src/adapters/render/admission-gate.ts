// Admission for every render on this instance: bounded work running and waiting, and a fair share per account.
import { ApiError } from '../../domain/errors.js';
import type { RenderCaller } from '../../domain/ports/renderer.js';
import type { AdmissionStats } from '../contract.js';

export interface AdmissionLimits {
  /** Cost units allowed to run at once. */
  running: number;
  /** Cost units allowed to wait for room; past it, 503 overloaded. */
  queued: number;
  /** Share (0..1] of running + queued one account may hold at once, by its plan. */
  accountShare: (caller: RenderCaller) => number;
  /**
   * Share (0..1] of `running` one account may run at once (default all of it): what it sends past that waits, so the
   * rest of the render capacity stays free for other accounts, whatever one account's images cost.
   */
  accountRunningShare?: (caller: RenderCaller) => number;
}

interface Waiting {
  accountId: string;
  cost: number;
  /** The most this account may run at once. */
  accountRunning: number;
  start: () => void;
}

/** Retry-After for a refusal: renders finish in milliseconds, so room comes back within a second. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Work is weighed in cost units (the pipeline counts pixels: a 2048 px render is 16 of a 512 px one).
 * A render runs at once when the running work leaves room for it and its account runs less than its running share;
 * it waits otherwise, and is refused when the queue is full or its account already holds its whole share, so one
 * account's flood is turned away while others' requests still get in. Waiting renders start first come, first served,
 * and none overtakes one that waits for room; one that waits only for its own account's running share holds nobody
 * else up, so an account's big renders never stand between another account and the room they leave.
 * Any render task can come through here (the branded renderer too): `run` takes the task itself.
 */
export class AdmissionGate {
  readonly #limits: AdmissionLimits;
  readonly #waiting: Waiting[] = [];
  readonly #heldByAccount = new Map<string, number>();
  readonly #runningByAccount = new Map<string, number>();
  #running = 0;
  #queued = 0;

  constructor(limits: AdmissionLimits) {
    this.#limits = limits;
  }

  /**
   * `shareRunning: false` (batch groups, which step back for others on their own) skips the account's running share.
   */
  async run<T>(
    caller: RenderCaller,
    cost: number,
    task: () => T | Promise<T>,
    options: { shareRunning?: boolean } = {},
  ): Promise<T> {
    const { accountId } = caller;
    const held = this.#heldByAccount.get(accountId) ?? 0;
    // Never below one render of the given cost, so an account alone on the instance can always render.
    const share = Math.max(cost, this.#limits.accountShare(caller) * (this.#limits.running + this.#limits.queued));
    if (held + cost > share)
      throw overloaded('this account already has its share of renders in progress on this instance');
    const runningShare = options.shareRunning === false ? 1 : (this.#limits.accountRunningShare?.(caller) ?? 1);
    const accountRunning = Math.max(cost, runningShare * this.#limits.running);
    const entry: Waiting = { accountId, cost, accountRunning, start: () => {} };
    const runsNow = !this.#waiting.some((waiting) => this.#withinAccountShare(waiting)) && this.#fits(entry);
    if (!runsNow && this.#queued + cost > this.#limits.queued) throw overloaded('the render queue is full');

    this.#heldByAccount.set(accountId, held + cost);
    if (runsNow) this.#start(entry);
    else await this.#wait(entry); // #startWaiting counts it as running before it resumes
    try {
      return await task();
    } finally {
      this.#running -= cost;
      release(this.#runningByAccount, accountId, cost);
      release(this.#heldByAccount, accountId, cost);
      this.#startWaiting();
    }
  }

  stats(): AdmissionStats {
    return { running: this.#running, queued: this.#queued, accounts: this.#heldByAccount.size };
  }

  /** Whether its account's running work leaves room for it under the account's running share. */
  #withinAccountShare(entry: Waiting): boolean {
    const running = this.#runningByAccount.get(entry.accountId) ?? 0;
    return running === 0 || running + entry.cost <= entry.accountRunning;
  }

  /** Whether it may start now: room in the running work (or nothing running) and in its account's running share. */
  #fits(entry: Waiting): boolean {
    return (
      (this.#running === 0 || this.#running + entry.cost <= this.#limits.running) && this.#withinAccountShare(entry)
    );
  }

  #start(entry: Waiting): void {
    this.#running += entry.cost;
    this.#runningByAccount.set(entry.accountId, (this.#runningByAccount.get(entry.accountId) ?? 0) + entry.cost);
  }

  #wait(entry: Waiting): Promise<void> {
    this.#queued += entry.cost;
    return new Promise((resolve) => this.#waiting.push({ ...entry, start: resolve }));
  }

  /**
   * In order of arrival, each render whose account is under its running share starts as soon as it fits; the first
   * that does not fit stops the rest (nothing overtakes it). Those waiting on their own account's share are passed
   * over.
   */
  #startWaiting(): void {
    for (let i = 0; i < this.#waiting.length;) {
      const next = this.#waiting[i]!;
      if (!this.#withinAccountShare(next)) {
        i++;
        continue;
      }
      if (!this.#fits(next)) return;
      this.#waiting.splice(i, 1);
      this.#queued -= next.cost;
      this.#start(next);
      next.start();
    }
  }
}

function release(byAccount: Map<string, number>, accountId: string, cost: number): void {
  const left = byAccount.get(accountId)! - cost;
  if (left > 0) byAccount.set(accountId, left);
  else byAccount.delete(accountId);
}

function overloaded(why: string): ApiError {
  return new ApiError('overloaded', `${why}; retry shortly`, { retryAfterSeconds: RETRY_AFTER_SECONDS });
}
