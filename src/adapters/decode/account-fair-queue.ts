// A fair queue in front of a small pool: accounts take turns, each with a bounded share of threads and queue.
import { ApiError } from '../../domain/errors.js';
import type { DecodeQueueStats } from '../../domain/ports/qr-decoder.js';

export interface FairQueueLimits {
  /** Tasks running at once (the pool's threads). */
  running: number;
  /** Tasks one account may run at once: below `running` where threads allow, so another account finds one free. */
  runningPerAccount: number;
  /** Tasks one account may hold, running and waiting; past it, 429 `too_many_decodes`. */
  heldPerAccount: number;
  /** Tasks waiting, all accounts together; past it, 503 `overloaded`. */
  waiting: number;
  /** Retry-After of a refusal: about one task's time. */
  retryAfterSeconds: number;
}

/**
 * A task runs at once when a thread is free and its account runs fewer than its share; otherwise it waits in its
 * account's own line (first come, first served). When a thread frees up, the accounts waiting take turns, the one
 * served longest ago first, so an account's task waits behind at most one task of each other account, however many
 * that account has sent.
 */
export class AccountFairQueue {
  readonly #limits: FairQueueLimits;
  readonly #runningBy = new Map<string, number>();
  readonly #heldBy = new Map<string, number>();
  readonly #linesBy = new Map<string, Array<() => void>>();
  /** Accounts with a task waiting, in the order they began to wait. */
  readonly #turns: string[] = [];
  /** When each account holding a task last started one (a serial number): the one served longest ago goes first. */
  readonly #startedAt = new Map<string, number>();
  #starts = 0;
  #running = 0;
  #waiting = 0;

  constructor(limits: FairQueueLimits) {
    this.#limits = limits;
  }

  async run<T>(accountId: string, task: () => Promise<T>): Promise<T> {
    const held = this.#heldBy.get(accountId) ?? 0;
    if (held >= this.#limits.heldPerAccount)
      throw this.#refusal(
        'too_many_decodes',
        `this account already has ${held} images being decoded or waiting on this instance; retry when one is answered`,
      );
    const startsNow =
      this.#running < this.#limits.running && (this.#runningBy.get(accountId) ?? 0) < this.#limits.runningPerAccount;
    if (!startsNow && this.#waiting >= this.#limits.waiting)
      throw this.#refusal('overloaded', 'too many images are being decoded; retry in a moment');
    this.#heldBy.set(accountId, held + 1);
    if (startsNow) this.#start(accountId);
    else await this.#wait(accountId);
    try {
      return await task();
    } finally {
      this.#finish(accountId);
    }
  }

  stats(): DecodeQueueStats {
    return { running: this.#running, waiting: this.#waiting, accounts: this.#heldBy.size };
  }

  #start(accountId: string): void {
    this.#startedAt.set(accountId, ++this.#starts);
    this.#running++;
    this.#runningBy.set(accountId, (this.#runningBy.get(accountId) ?? 0) + 1);
  }

  #wait(accountId: string): Promise<void> {
    this.#waiting++;
    let line = this.#linesBy.get(accountId);
    if (!line) {
      line = [];
      this.#linesBy.set(accountId, line);
      this.#turns.push(accountId);
    }
    const waitingLine = line;
    return new Promise((resolve) => waitingLine.push(resolve));
  }

  #finish(accountId: string): void {
    this.#running--;
    const running = this.#runningBy.get(accountId)! - 1;
    if (running > 0) this.#runningBy.set(accountId, running);
    else this.#runningBy.delete(accountId);
    const held = this.#heldBy.get(accountId)! - 1;
    if (held > 0) this.#heldBy.set(accountId, held);
    else {
      this.#heldBy.delete(accountId);
      this.#startedAt.delete(accountId);
    }
    this.#startWaiting();
  }

  /**
   * While a thread is free: of the accounts waiting and under their share, the one running fewest, then the one
   * that started a task longest ago (then the one waiting longest), starts its oldest task.
   */
  #startWaiting(): void {
    while (this.#running < this.#limits.running) {
      const turn = this.#nextTurn();
      if (turn < 0) return;
      const [accountId] = this.#turns.splice(turn, 1) as [string];
      const line = this.#linesBy.get(accountId)!;
      const start = line.shift()!;
      if (line.length > 0) this.#turns.push(accountId);
      else this.#linesBy.delete(accountId);
      this.#waiting--;
      this.#start(accountId);
      start();
    }
  }

  #nextTurn(): number {
    let best = -1;
    let bestRunning = Number.POSITIVE_INFINITY;
    let bestStarted = Number.POSITIVE_INFINITY;
    this.#turns.forEach((accountId, i) => {
      const running = this.#runningBy.get(accountId) ?? 0;
      if (running >= this.#limits.runningPerAccount) return;
      const started = this.#startedAt.get(accountId) ?? 0;
      if (running < bestRunning || (running === bestRunning && started < bestStarted)) {
        best = i;
        bestRunning = running;
        bestStarted = started;
      }
    });
    return best;
  }

  #refusal(code: 'too_many_decodes' | 'overloaded', detail: string): ApiError {
    return new ApiError(code, detail, { retryAfterSeconds: this.#limits.retryAfterSeconds });
  }
}
