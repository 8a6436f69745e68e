// GuessLimiter in Redis: a counter per code and address bucket that expires with its window, shared by every instance.
import type { RedisClient } from './connection.js';
import type { GuessLimiter } from '../../domain/ports/guess-limiter.js';

/** KEYS counter; ARGV window ms. The guesses in the window (this one included) and the ms left of it. */
const ATTEMPT = `
local guesses = redis.call('INCR', KEYS[1])
if guesses == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); left = tonumber(ARGV[1]) end
return {guesses, left}
`;

/** KEYS counter: one guess taken back, never below zero, the window kept. */
const FORGIVE = `
local guesses = tonumber(redis.call('GET', KEYS[1]) or '0')
if guesses > 0 then redis.call('DECR', KEYS[1]) end
return 1
`;

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
