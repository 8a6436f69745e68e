// ScanEventSource in Redis: takes the accounts' waiting scans (written by the scan counter's script) atomically, each once.
import type { Redis } from 'ioredis';
import type { ScanEventSource } from '../../domain/ports/scan-webhooks.js';
import { DEVICE_CLASSES, type AccountScans, type DeviceClass } from '../../domain/scan.js';
import { scanEventAccountsKey, scanEventsKey } from './scan-counter.redis.js';

/** KEYS accounts set; ARGV limit, key prefix of the hashes. Pops accounts and returns [account, fields…] with each hash deleted. */
const TAKE = `
local accounts = redis.call('SPOP', KEYS[1], ARGV[1])
local out = {}
for _, account in ipairs(accounts) do
  local key = ARGV[2] .. account
  out[#out + 1] = {account, redis.call('HGETALL', key)}
  redis.call('DEL', key)
end
return out
`;

type TakeCommands = Redis & { qrmScanEventsTake(key: string, limit: number, hashPrefix: string): Promise<Array<[string, string[]]>> };

const DEVICES = new Set<string>(DEVICE_CLASSES);

export class RedisScanEventSource implements ScanEventSource {
  readonly #redis: TakeCommands;
  readonly #prefix: string;

  constructor(redis: Redis, options: { keyPrefix?: string } = {}) {
    redis.defineCommand('qrmScanEventsTake', { numberOfKeys: 1, lua: TAKE });
    this.#redis = redis as TakeCommands;
    this.#prefix = options.keyPrefix ?? 'qrm:';
  }

  async take(limit: number): Promise<AccountScans[]> {
    const taken = await this.#redis.qrmScanEventsTake(scanEventAccountsKey(this.#prefix), limit, scanEventsKey(this.#prefix, ''));
    return taken.map(([accountId, fields]) => {
      const codes = new Map<string, AccountScans['codes'][number]>();
      const codeOf = (codeId: string) => {
        let code = codes.get(codeId);
        if (!code) codes.set(codeId, (code = { codeId, scans: 0, devices: {} }));
        return code;
      };
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const [codeId = '', device] = fields[i]!.split('|');
        const n = Number(fields[i + 1]);
        if (device === undefined) codeOf(codeId).scans = n;
        else if (DEVICES.has(device)) codeOf(codeId).devices[device as DeviceClass] = n;
      }
      return { accountId, codes: [...codes.values()] };
    });
  }
}
