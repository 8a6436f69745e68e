// ScanAllowance in Redis: a counter per code taken by a script, so every instance shares one limit.
import type { RedisClient } from './connection.js';
import type { ScanAllowance } from '../../domain/ports/scan-allowance.js';

/** KEYS counter; ARGV maxScans. 1 and the counter moved, or 0 and nothing changed. No TTL: the limit holds for the code's life. */
const TAKE = `
local taken = tonumber(redis.call('GET', KEYS[1]) or '0')
if taken >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
return 1
`;

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
