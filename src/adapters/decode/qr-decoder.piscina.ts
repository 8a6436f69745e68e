// QrDecoder on its own Piscina pool behind a per-account fair queue: sharp, zxing-wasm, zbar and jsQR on worker
// threads.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { workerThreadEntry } from '../../package-root.js';
import type { DecodeOutcome, DecodeQueueStats, DecodeRequest, QrDecoder } from '../../domain/ports/qr-decoder.js';
import type { DecodeTask } from '../../render/decode-image.js';
import { AccountFairQueue } from './account-fair-queue.js';

export interface DecoderOptions {
  /** Decode threads (default: the cores, at most four). */
  threads?: number;
  /** The time the slow readers (zbar, jsQR) may start within, from when a thread takes the image. */
  budgetMs: number;
  /** Images waiting for a thread, all accounts together; past it, 503 overloaded. */
  maxQueue?: number;
  /** Images one account may have being decoded or waiting; past it, 429 too_many_decodes. */
  perAccount?: number;
}

export class PiscinaQrDecoder implements QrDecoder {
  readonly #pool: Piscina<DecodeTask, DecodeOutcome>;
  readonly #queue: AccountFairQueue;
  readonly #budgetMs: number;

  /** Threads start on the first decode and stop after a minute idle: decoding is occasional, renders are not. */
  constructor(options: DecoderOptions) {
    const threads = options.threads ?? Math.min(4, Math.max(1, availableParallelism()));
    const { filename, execArgv } = workerThreadEntry('decode-thread');
    this.#budgetMs = options.budgetMs;
    this.#pool = new Piscina({
      filename,
      execArgv,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      // The fair queue hands the pool no more than it has threads: what waits, waits there, in turns.
      maxQueue: threads,
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    this.#queue = new AccountFairQueue({
      running: threads,
      // With threads to spare one stays out of any one account's reach, so a flood never holds them all.
      runningPerAccount: Math.max(1, Math.ceil(threads / 2)),
      heldPerAccount: options.perAccount ?? 4,
      waiting: options.maxQueue ?? 16,
      retryAfterSeconds: Math.max(1, Math.ceil((2 * options.budgetMs) / 1000)),
    });
  }

  decode(request: DecodeRequest): Promise<DecodeOutcome> {
    return this.#queue.run(request.accountId, () =>
      this.#pool.run({ image: request.image, maxPixels: request.maxPixels, budgetMs: this.#budgetMs }),
    );
  }

  /** Images running and waiting, for tests and gauges. */
  stats(): DecodeQueueStats {
    return this.#queue.stats();
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}
