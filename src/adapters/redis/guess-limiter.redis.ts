// GuessLimiter in Redis: a counter per code and address bucket that expires with its window, shared by every instance.
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';
import type { GuessLimiter } from '../../domain/ports/guess-limiter.js';

// The scripts (src/adapters/redis/lua/): each file opens with its KEYS, ARGV and answer.
const ATTEMPT = readLua('guess-attempt');
const FORGIVE = readLua('guess-forgive');

type GuessCommands = RedisClient & {
  qrmGuessAttempt(key: string, windowMs: number): Promise<[number, number]>;
  qrmGuessForgive(key: string): Promise<number>;
};

export class RedisGuessLimiter implements GuessLimiter {
  readonly #redis: GuessCommands;
  readonly #prefix: string;

  constructor(redis: RedisClient, options: { keyPrefix?: string } = {}) {
    redis.defineCommand('qrmGuessAttempt', { numberOfKeys: 1, lua: ATTEMPT });
    redis.defineCommand('qrmGuessForgive', { numberOfKeys: 1, lua: FORGIVE });
    this.#redis = redis as GuessCommands;
    this.#prefix = options.keyPrefix ?? 'qrm:';
  }

  async attempt(key: string, windowMs: number, now: Date): Promise<{ guesses: number; resetAt: Date }> {
    const [guesses, leftMs] = await this.#redis.qrmGuessAttempt(`${this.#prefix}guesses:${key}`, windowMs);
    return { guesses, resetAt: new Date(now.getTime() + leftMs) };
  }

  async forgive(key: string): Promise<void> {
    await this.#redis.qrmGuessForgive(`${this.#prefix}guesses:${key}`);
  }
}
