// Small renders asked for in one event-loop turn cross to the pool together: one task per thread, not one per render.
import { ApiError } from '../../domain/errors.js';
import type { RenderedImage } from '../../domain/rendered-image.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { TurnBatch, type Waiting } from '../turn-batch.js';
import type { RenderPool } from './render-pool.piscina.js';

type WaitingRender = Waiting<RenderSpec, RenderedImage>;

/**
 * A pool task costs the event loop a large share of a small render, and a group of them in one task costs little
 * more than one. So the renders of a turn wait for the turn's end (setImmediate) and go as at most one group per
 * thread, each a renderMany task. A thread hop is work too: it pays where the event loop, not the machine, is what
 * runs out (bench rows c-thread and c-inline weigh it: docs/decisions/render-batcher-turn-groups.md).
 */
export class RenderBatcher {
  readonly #pool: RenderPool;
  readonly #turn = new TurnBatch<RenderSpec, RenderedImage>((waiting) => this.#split(waiting));

  constructor(pool: RenderPool) {
    this.#pool = pool;
  }

  render(spec: RenderSpec): Promise<RenderedImage> {
    return this.#turn.add(spec);
  }

  /** At most one group per thread, of even sizes. */
  #split(waiting: WaitingRender[]): void {
    const size = Math.ceil(waiting.length / Math.min(this.#pool.threads, waiting.length));
    for (let i = 0; i < waiting.length; i += size) void this.#send(waiting.slice(i, i + size));
  }

  async #send(group: WaitingRender[]): Promise<void> {
    let outcomes: Array<RenderedImage | ApiError>;
    try {
      outcomes = await this.#pool.renderMany(group.map((item) => item.input));
    } catch (error) {
      // A full queue or a lost thread fails the whole group, each request with the same answer (503, retry).
      for (const item of group) item.reject(error);
      return;
    }
    group.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome instanceof ApiError) item.reject(outcome);
      else item.resolve(outcome);
    });
  }
}
