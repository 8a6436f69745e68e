// Work asked for within one event-loop turn, handed over together when the turn ends (setImmediate).

export interface Waiting<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/**
 * The first request of a turn schedules the flush; every request until then joins it. At most `maxBatch` go
 * per flush, the rest in the next turn's, in arrival order. The flush answers each request itself.
 */
export class TurnBatch<I, O> {
  readonly #flush: (batch: Array<Waiting<I, O>>) => void;
  readonly #maxBatch: number;
  #waiting: Array<Waiting<I, O>> = [];

  constructor(flush: (batch: Array<Waiting<I, O>>) => void, maxBatch = Number.POSITIVE_INFINITY) {
    this.#flush = flush;
    this.#maxBatch = maxBatch;
  }

  add(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      if (this.#waiting.length === 1) setImmediate(() => this.#drain());
    });
  }

  #drain(): void {
    const batch = this.#waiting;
    // Past maxBatch, the tail is cut off the batch and waits for the next turn.
    this.#waiting = batch.length > this.#maxBatch ? batch.splice(this.#maxBatch) : [];
    if (this.#waiting.length > 0) setImmediate(() => this.#drain());
    this.#flush(batch);
  }
}
