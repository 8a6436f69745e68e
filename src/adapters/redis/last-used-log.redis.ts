// LastUsedLog on Redis: each API instance buffers in memory and pushes once a second to one hash that the jobs
// process's flush job drains.
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';
import type { LastUsedBatch, LastUsedEntry, LastUsedLog } from '../../domain/ports/last-used-log.js';

export interface RedisLastUsedLogOptions {
  /** Prefix of every key, ending with its separator (default `qrm:`). */
  keyPrefix?: string;
  /** How often this instance pushes what it buffered (default 1000 ms). */
  pushEveryMs?: number;
}

// The scripts (src/adapters/redis/lua/): each file opens with its KEYS, ARGV and answer.
const PUSH = readLua('last-used-push');
const ACKNOWLEDGE = readLua('last-used-acknowledge');

export class RedisLastUsedLog implements LastUsedLog {
  readonly #redis: RedisClient;
  readonly #key: string;
  #local = new Map<string, number>();
  readonly #timer: NodeJS.Timeout;

  /** The client stays its creator's to close; call close() first to push what is buffered. */
  constructor(redis: RedisClient, options: RedisLastUsedLogOptions = {}) {
    this.#redis = redis;
    this.#key = `${options.keyPrefix ?? 'qrm:'}last-used`;
    this.#timer = setInterval(() => void this.push().catch(() => undefined), options.pushEveryMs ?? 1_000);
    this.#timer.unref();
  }

  record(keyId: string, at: Date): void {
    const time = at.getTime();
    if ((this.#local.get(keyId) ?? Number.NEGATIVE_INFINITY) < time) this.#local.set(keyId, time);
  }

  /** Moves this instance's buffer into Redis; on failure the entries stay buffered for the next push. */
  async push(): Promise<void> {
    if (this.#local.size === 0) return;
    const batch = this.#local;
    this.#local = new Map();
    try {
      await this.#redis.eval(PUSH, 1, this.#key, ...[...batch].flatMap(([keyId, time]) => [keyId, String(time)]));
    } catch (error) {
      for (const [keyId, time] of batch) this.record(keyId, new Date(time));
      throw error;
    }
  }

  async take(limit: number): Promise<LastUsedBatch> {
    await this.push();
    // HSCAN from the start: committed entries are deleted, so each take sees the next ones.
    const [, flat] = await this.#redis.hscan(this.#key, '0', 'COUNT', limit);
    const entries: LastUsedEntry[] = [];
    for (let i = 0; i + 1 < flat.length && entries.length < limit; i += 2)
      entries.push({ keyId: flat[i]!, at: new Date(Number(flat[i + 1])) });
    return {
      entries,
      commit: async () => {
        if (entries.length === 0) return;
        await this.#redis.eval(ACKNOWLEDGE, 1, this.#key, ...entries.flatMap((e) => [e.keyId, String(e.at.getTime())]));
      },
    };
  }

  /** Stops the push timer after a last push (best effort: Redis may be down). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.push().catch(() => undefined);
  }
}
