// Scan counting in Redis: one script call per scan (counts, device and language splits, a HyperLogLog of salted visitors), and the rollup's reads.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ScanCounters, ScanRecorder } from '../../domain/ports/scan-ledger.js';
import { dayOf, DEVICE_CLASSES, type DeviceClass, type Scan, type ScanDay } from '../../domain/scan.js';

/**
 * KEYS counts (hash), visitors (HyperLogLog), salt (the day's), changed (set of code|day)
 * ARGV visitor key, device, language, candidate salt, ttl (s), member
 * The salt is drawn once per day by whichever scan comes first and expires with the day's keys;
 * visitors are salted inside Redis (SHA-1 over salt and the visitor key), so the HyperLogLog never
 * sees the same value for one person on two days, and the salt never leaves Redis.
 */
const RECORD = `
local salt = redis.call('GET', KEYS[3])
if not salt then
  redis.call('SET', KEYS[3], ARGV[4], 'NX', 'EX', ARGV[5])
  salt = redis.call('GET', KEYS[3])
end
redis.call('HINCRBY', KEYS[1], 'scans', 1)
redis.call('HINCRBY', KEYS[1], 'd:' .. ARGV[2], 1)
redis.call('HINCRBY', KEYS[1], 'l:' .. ARGV[3], 1)
redis.call('PFADD', KEYS[2], redis.sha1hex(salt .. ':' .. ARGV[1]))
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('SADD', KEYS[4], ARGV[6])
return 1
`;

/** KEYS counts, changed; ARGV member, scans in the snapshot. Unmarks the code-day only if no scan came after the snapshot. */
const ACKNOWLEDGE = `
local scans = redis.call('HGET', KEYS[1], 'scans')
if not scans or tonumber(scans) <= tonumber(ARGV[2]) then redis.call('SREM', KEYS[2], ARGV[1]) end
return 1
`;

export interface RedisScanCounterOptions {
  keyPrefix?: string;
  /** How long a day's counters stay in Redis after its last scan (default 8 days): the rollup has that long to copy them. */
  ttlSeconds?: number;
}

type ScanCommands = Redis & {
  qrmScanRecord(...args: Array<string | number>): Promise<number>;
  qrmScanAcknowledge(...args: Array<string | number>): Promise<number>;
};

export class RedisScanCounter implements ScanRecorder, ScanCounters {
  readonly #redis: ScanCommands;
  readonly #prefix: string;
  readonly #ttl: number;
  readonly #inFlight = new Set<Promise<unknown>>();
  #lost = 0;

  constructor(redis: Redis, options: RedisScanCounterOptions = {}) {
    redis.defineCommand('qrmScanRecord', { numberOfKeys: 4, lua: RECORD });
    redis.defineCommand('qrmScanAcknowledge', { numberOfKeys: 2, lua: ACKNOWLEDGE });
    this.#redis = redis as ScanCommands;
    this.#prefix = options.keyPrefix ?? 'qrm:';
    this.#ttl = options.ttlSeconds ?? 8 * 86_400;
  }

  #keys(codeId: string, day: string): { counts: string; visitors: string } {
    return { counts: `${this.#prefix}scans:${codeId}:${day}`, visitors: `${this.#prefix}scans-hll:${codeId}:${day}` };
  }

  get #changedKey(): string {
    return `${this.#prefix}scans:changed`;
  }

  record(scan: Scan): void {
    const day = dayOf(scan.at);
    const { counts, visitors } = this.#keys(scan.codeId, day);
    const call = this.#redis
      .qrmScanRecord(counts, visitors, `${this.#prefix}scans-salt:${day}`, this.#changedKey, scan.visitor, scan.device, scan.language, randomBytes(16).toString('base64url'), this.#ttl, `${scan.codeId}|${day}`)
      .catch(() => {
        // Redis down or slow: the redirect was answered already; the scan is reported in the metric, not retried.
        this.#lost++;
      })
      .finally(() => this.#inFlight.delete(call));
    this.#inFlight.add(call);
  }

  unrecorded(): number {
    return this.#lost;
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    await this.flush();
  }

  async changed(limit: number): Promise<ScanDay[]> {
    const members = await this.#redis.srandmember(this.#changedKey, limit);
    if (members.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    const parsed = members.map((member) => {
      const [codeId = '', day = ''] = member.split('|');
      const { counts, visitors } = this.#keys(codeId, day);
      pipeline.hgetall(counts).pfcount(visitors);
      return { codeId, day };
    });
    const replies = (await pipeline.exec()) ?? [];
    return parsed.map(({ codeId, day }, i) => {
      const [countsError, fields] = replies[i * 2] ?? [];
      const [visitorsError, uniques] = replies[i * 2 + 1] ?? [];
      if (countsError || visitorsError) throw countsError ?? visitorsError;
      return toScanDay(codeId, day, fields as Record<string, string>, Number(uniques));
    });
  }

  async acknowledge(days: readonly ScanDay[]): Promise<void> {
    const pipeline = this.#redis.pipeline();
    for (const day of days) {
      (pipeline as unknown as { qrmScanAcknowledge(...a: Array<string | number>): void }).qrmScanAcknowledge(
        this.#keys(day.codeId, day.day).counts,
        this.#changedKey,
        `${day.codeId}|${day.day}`,
        day.scans,
      );
    }
    await pipeline.exec();
  }
}

const DEVICES = new Set<string>(DEVICE_CLASSES);

function toScanDay(codeId: string, day: string, fields: Record<string, string>, uniques: number): ScanDay {
  const devices: ScanDay['devices'] = {};
  const languages: ScanDay['languages'] = {};
  for (const [field, value] of Object.entries(fields)) {
    if (field.startsWith('d:') && DEVICES.has(field.slice(2))) devices[field.slice(2) as DeviceClass] = Number(value);
    else if (field.startsWith('l:')) languages[field.slice(2)] = Number(value);
  }
  // A HyperLogLog may estimate a few more visitors than there were scans; never report that.
  const scans = Number(fields.scans ?? 0);
  return { codeId, day, scans, uniques: Math.min(uniques, scans), devices, languages };
}
