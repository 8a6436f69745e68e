// ScanAllowance in Redis: a counter per code taken by a script, so every instance shares one limit.
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';
import type { ScanAllowance } from '../../domain/ports/scan-allowance.js';

// The scripts (src/adapters/redis/lua/): each file opens with its KEYS, ARGV and answer.
const TAKE = readLua('scan-allowance-take');

type AllowanceCommands = RedisClient & { qrmScanAllowanceTake(key: string, maxScans: number): Promise<number> };

export class RedisScanAllowance implements ScanAllowance {
  readonly #redis: AllowanceCommands;
  readonly #prefix: string;

  constructor(redis: RedisClient, options: { keyPrefix?: string } = {}) {
    redis.defineCommand('qrmScanAllowanceTake', { numberOfKeys: 1, lua: TAKE });
    this.#redis = redis as AllowanceCommands;
    this.#prefix = options.keyPrefix ?? 'qrm:';
  }

  async take(codeId: string, maxScans: number): Promise<boolean> {
    if (maxScans < 1) return false;
    return (await this.#redis.qrmScanAllowanceTake(`${this.#prefix}scan-allowance:${codeId}`, maxScans)) === 1;
  }
}
