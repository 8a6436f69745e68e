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
}

interface Waiting {
  cost: number;
  start: () => void;
}

/** Retry-After for a refusal: renders finish in milliseconds, so room comes back within a second. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Work is weighed in cost units (the pipeline counts pixels: a 2048 px render is 16 of a 512 px one).
 * A render runs at once when the running work leaves room for it, waits in FIFO order when the queue
 * does, and is refused otherwise; an account already holding its share is refused whatever the room,
 * so one account's flood is turned away while others' requests still get in.
 * Any render task can come through here (the branded renderer too): `run` takes the task itself.
 */
export class AdmissionGate {
  readonly #limits: AdmissionLimits;
  readonly #waiting: Waiting[] = [];
  readonly #heldByAccount = new Map<string, number>();
  #running = 0;
  #queued = 0;

  constructor(limits: AdmissionLimits) {
    this.#limits = limits;
  }

  async run<T>(caller: RenderCaller, cost: number, task: () => T | Promise<T>): Promise<T> {
    const held = this.#heldByAccount.get(caller.accountId) ?? 0;
    // Never below one render of the given cost, so an account alone on the instance can always render.
    const share = Math.max(cost, this.#limits.accountShare(caller) * (this.#limits.running + this.#limits.queued));
    if (held + cost > share) throw overloaded('this account already has its share of renders in progress on this instance');
    const runsNow = this.#waiting.length === 0 && (this.#running === 0 || this.#running + cost <= this.#limits.running);
    if (!runsNow && this.#queued + cost > this.#limits.queued) throw overloaded('the render queue is full');

    this.#heldByAccount.set(caller.accountId, held + cost);
    if (runsNow) this.#running += cost;
    else await this.#wait(cost); // #startWaiting counts it as running before it resumes
    try {
      return await task();
    } finally {
      this.#running -= cost;
      const left = this.#heldByAccount.get(caller.accountId)! - cost;
      if (left > 0) this.#heldByAccount.set(caller.accountId, left);
      else this.#heldByAccount.delete(caller.accountId);
      this.#startWaiting();
    }
  }

  stats(): AdmissionStats {
    return { running: this.#running, queued: this.#queued, accounts: this.#heldByAccount.size };
  }

  #wait(cost: number): Promise<void> {
    this.#queued += cost;
    return new Promise((resolve) => this.#waiting.push({ cost, start: resolve }));
  }

  /** First come, first served: the head of the queue starts as soon as it fits, and nothing overtakes it. */
  #startWaiting(): void {
    while (this.#waiting.length > 0) {
      const next = this.#waiting[0]!;
      if (this.#running > 0 && this.#running + next.cost > this.#limits.running) return;
      this.#waiting.shift();
      this.#queued -= next.cost;
      this.#running += next.cost;
      next.start();
    }
  }
}

function overloaded(why: string): ApiError {
  return new ApiError('overloaded', `${why}; retry shortly`, { retryAfterSeconds: RETRY_AFTER_SECONDS });
}
