// Scan counting in Redis: one script call per account in a batch of scans (counts, bots, device, language, country,
// city and hour
// splits, a HyperLogLog of salted visitors), and the rollup's reads.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';
import { accountTag, bucketTagOf, nonEmptyBuckets } from './slot-tags.js';
import { SCAN_GATHER_MS, type ScanCounters, type ScanRecorder } from '../../domain/ports/scan-ledger.js';
import {
  cityKey,
  countryOf,
  dayOf,
  DEVICE_CLASSES,
  emptyScanDay,
  hourOf,
  type DeviceClass,
  type Scan,
  type ScanDay,
} from '../../domain/scan.js';

// The scripts (src/adapters/redis/lua/): each file opens with its KEYS, ARGV and answer.
const RECORD = readLua('scan-record');
const ACKNOWLEDGE = readLua('scan-acknowledge');
const ERASE = readLua('scan-erase');

/**
 * A slot bucket's set of accounts with scans waiting for their webhooks, and each one's hash of them (read by
 * RedisScanEventSource).
 */
export const scanEventAccountsKey = (prefix: string, bucketTag: string) => `${prefix}scan-events:${bucketTag}:accounts`;
export const scanEventsKey = (prefix: string, accountId: string) => `${prefix}scan-events:${accountTag(accountId)}`;

export interface RedisScanCounterOptions {
  keyPrefix?: string;
  /**
   * How long a day's counters stay in Redis after its last scan (default 8 days): the rollup has that long to copy
   * them.
   */
  ttlSeconds?: number;
}

interface Group {
  c: number;
  h: number;
  s: number;
  e: number;
  m: string;
  a: string;
  k: string;
  n: number;
  b: number;
  d: Partial<Record<DeviceClass, number>>;
  l: Record<string, number>;
  r: Record<string, number>;
  o: Record<string, number>;
  t: Record<string, number>;
  w: Record<string, number>;
  v: Array<[string, string]>;
}

/** Scans per script call at most: the visitors of a group go to PFADD as arguments, and Lua's stack is bounded. */
const MAX_BATCH = 1_000;

type ScanCommands = RedisClient & {
  qrmScanRecord(...args: Array<string | number>): Promise<number>;
  qrmScanAcknowledge(...args: Array<string | number>): Promise<number>;
  qrmScanErase(...args: Array<string | number>): Promise<number>;
};

/** Where a snapshot `changed` answered came from: its account, and the code's erase generation when it was read. */
interface SnapshotOrigin {
  accountId: string;
  generation: number;
}

export class RedisScanCounter implements ScanRecorder, ScanCounters {
  readonly #redis: ScanCommands;
  readonly #prefix: string;
  readonly #ttl: number;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The origin of each code-day `changed` answered, for its acknowledgement. */
  readonly #origins = new WeakMap<ScanDay, SnapshotOrigin>();
  #pending: Scan[] = [];
  #lost = 0;

  constructor(redis: RedisClient, options: RedisScanCounterOptions = {}) {
    redis.defineCommand('qrmScanRecord', { lua: RECORD });
    redis.defineCommand('qrmScanAcknowledge', { numberOfKeys: 3, lua: ACKNOWLEDGE });
    redis.defineCommand('qrmScanErase', { lua: ERASE });
    this.#redis = redis as ScanCommands;
    this.#prefix = options.keyPrefix ?? 'qrm:';
    this.#ttl = options.ttlSeconds ?? 8 * 86_400;
  }

  #keys(accountId: string, codeId: string, day: string): { counts: string; visitors: string } {
    const tag = accountTag(accountId);
    return {
      counts: `${this.#prefix}scans:${tag}:${codeId}:${day}`,
      visitors: `${this.#prefix}scans-hll:${tag}:${codeId}:${day}`,
    };
  }

  /** How many times the code's scan data was erased (while the counters' lifetime lasts): in its account's slot. */
  #generationKey(accountId: string, codeId: string): string {
    return `${this.#prefix}scans-erased:${accountTag(accountId)}:${codeId}`;
  }

  /** A slot bucket's set of the code-days (account|code|day) changed since their last rollup. */
  #changedKey(bucketTag: string): string {
    return `${this.#prefix}scans:${bucketTag}:changed`;
  }

  /**
   * Scans of a few milliseconds go to Redis together: one script call (one round trip) counts them all, so a busy
   * redirect costs Redis a call per batch, not per scan.
   */
  record(scan: Scan): void {
    this.#pending.push(scan);
    if (this.#pending.length === 1) setTimeout(() => this.#send(), SCAN_GATHER_MS).unref();
  }

  #send(): void {
    const batch = this.#pending.splice(0, MAX_BATCH);
    if (this.#pending.length > 0) setImmediate(() => this.#send());
    if (batch.length === 0) return;
    const byAccount = new Map<string, Scan[]>();
    for (const scan of batch) {
      const scans = byAccount.get(scan.accountId);
      if (scans) scans.push(scan);
      else byAccount.set(scan.accountId, [scan]);
    }
    // One script per account: its keys share a slot, so each call is atomic on one node, cluster or not.
    for (const [accountId, scans] of byAccount) this.#sendAccount(accountId, scans);
  }

  #sendAccount(accountId: string, scans: Scan[]): void {
    const bucket = bucketTagOf(accountId);
    const keys = [
      this.#changedKey(bucket),
      scanEventAccountsKey(this.#prefix, bucket),
      scanEventsKey(this.#prefix, accountId),
    ];
    const indexOf = new Map<string, number>();
    const keyIndex = (key: string) => {
      let index = indexOf.get(key);
      if (index === undefined) {
        index = keys.push(key);
        indexOf.set(key, index);
      }
      return index;
    };
    const groups = new Map<string, Group & { visitors: Map<string, string> }>();
    for (const scan of scans) {
      const day = dayOf(scan.at);
      const member = `${accountId}|${scan.codeId}|${day}`;
      let group = groups.get(member);
      if (!group) {
        const { counts, visitors } = this.#keys(accountId, scan.codeId, day);
        group = {
          c: keyIndex(counts),
          h: keyIndex(visitors),
          s: keyIndex(`${this.#prefix}scans-salt:${accountTag(accountId)}:${day}`),
          e: 3,
          m: member,
          a: accountId,
          k: scan.codeId,
          n: 0,
          b: 0,
          d: {},
          l: {},
          o: {},
          t: {},
          w: {},
          r: {},
          v: [],
          visitors: new Map(),
        };
        groups.set(member, group);
      }
      if (scan.bot) {
        group.b++;
        continue;
      }
      const hour = hourOf(scan.at);
      group.n++;
      increment(group.d, scan.device);
      increment(group.l, scan.language);
      if (scan.arm !== undefined) increment(group.r, scan.arm);
      if (!scan.anonymous) increment(group.o, countryOf(scan.place));
      const city = cityKey(scan.place);
      if (city !== undefined) increment(group.t, city);
      increment(group.w, hour);
      if (scan.visitor !== null && !group.visitors.has(scan.visitor)) group.visitors.set(scan.visitor, hour);
    }
    // cjson encodes an empty Lua table as {}, not []: the Lua side only iterates these, so either reads the same.
    const payload = [...groups.values()].map(({ visitors, ...group }) => ({ ...group, v: [...visitors] }));
    const call = this.#redis
      .qrmScanRecord(keys.length, ...keys, JSON.stringify(payload), this.#ttl, randomBytes(16).toString('base64url'))
      .catch(() => {
        // Redis down or slow: the redirects were answered already; these scans are reported in the metric, not retried.
        this.#lost += scans.length;
      })
      .finally(() => this.#inFlight.delete(call));
    this.#inFlight.add(call);
  }

  unrecorded(): number {
    return this.#lost;
  }

  async flush(): Promise<void> {
    while (this.#pending.length > 0) this.#send();
    await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    await this.flush();
  }

  async changed(limit: number): Promise<ScanDay[]> {
    // The buckets holding something are read (one script per master): the code-days changed anywhere, up to `limit`.
    const buckets = await nonEmptyBuckets(this.#redis, (tag) => this.#changedKey(tag), { members: limit });
    const members = buckets.flatMap(({ read }) => read).slice(0, limit);
    return Promise.all(
      members.map(async (member) => {
        const [accountId = '', codeId = '', day = ''] = member.split('|');
        const { counts, visitors } = this.#keys(accountId, codeId, day);
        // The keys are the account's, one slot: one transaction, so the generation is the one the counts were read at.
        const replies =
          (await this.#redis
            .multi()
            .get(this.#generationKey(accountId, codeId))
            .hgetall(counts)
            .pfcount(visitors)
            .exec()) ?? [];
        const [generationError, generation] = replies[0] ?? [];
        const [countsError, fields] = replies[1] ?? [];
        const [visitorsError, uniques] = replies[2] ?? [];
        if (generationError || countsError || visitorsError) throw generationError ?? countsError ?? visitorsError;
        const scanDay = toScanDay(codeId, day, fields as Record<string, string>, Number(uniques));
        this.#origins.set(scanDay, { accountId, generation: Number(generation ?? 0) });
        return scanDay;
      }),
    );
  }

  async acknowledge(days: readonly ScanDay[]): Promise<string[]> {
    const origins = days.map((day) => {
      const origin = this.#origins.get(day);
      if (origin === undefined) throw new Error('acknowledge takes the code-days RedisScanCounter.changed returned');
      return origin;
    });
    // A code whose days were read at different generations was erased while they were read: each of its days is
    // checked against the oldest, so none of them is unmarked and the code is answered as erased.
    const oldest = new Map<string, number>();
    days.forEach((day, i) => {
      const seen = oldest.get(day.codeId);
      if (seen === undefined || origins[i]!.generation < seen) oldest.set(day.codeId, origins[i]!.generation);
    });
    const answers = await Promise.all(
      days.map((day, i) => {
        const { accountId } = origins[i]!;
        return this.#redis.qrmScanAcknowledge(
          this.#keys(accountId, day.codeId, day.day).counts,
          this.#changedKey(bucketTagOf(accountId)),
          this.#generationKey(accountId, day.codeId),
          `${accountId}|${day.codeId}|${day.day}`,
          day.scans,
          day.bots,
          oldest.get(day.codeId)!,
        );
      }),
    );
    return [...new Set(days.filter((_day, i) => answers[i] === 0).map((day) => day.codeId))];
  }

  async erase(accountId: string, codeId: string, at: Date): Promise<void> {
    const days: string[] = [];
    for (let t = at.getTime() - this.#ttl * 1_000 - DAY_MS; t <= at.getTime() + DAY_MS; t += DAY_MS) {
      days.push(dayOf(new Date(t)));
    }
    // The generation, counters and visitor sets are the account's; the changed set is its slot's bucket: one script.
    const keys = [
      this.#generationKey(accountId, codeId),
      this.#changedKey(bucketTagOf(accountId)),
      ...days.flatMap((day) => Object.values(this.#keys(accountId, codeId, day))),
    ];
    const members = days.map((day) => `${accountId}|${codeId}|${day}`);
    await this.#redis.qrmScanErase(keys.length, ...keys, this.#ttl, ...members);
  }
}

const DEVICES = new Set<string>(DEVICE_CLASSES);
const DAY_MS = 86_400_000;

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function toScanDay(codeId: string, day: string, fields: Record<string, string>, uniques: number): ScanDay {
  const counts = emptyScanDay(codeId, day);
  const splits: Record<string, Record<string, number>> = {
    'l:': counts.languages,
    'r:': counts.arms,
    'c:': counts.countries,
    't:': counts.cities,
    'h:': counts.hours,
    'u:': counts.hourUniques,
  };
  for (const [field, value] of Object.entries(fields)) {
    const prefix = field.slice(0, 2);
    const name = field.slice(2);
    if (prefix === 'd:' && DEVICES.has(name)) counts.devices[name as DeviceClass] = Number(value);
    else if (splits[prefix]) splits[prefix][name] = Number(value);
  }
  counts.scans = Number(fields.scans ?? 0);
  counts.bots = Number(fields.bots ?? 0);
  // A HyperLogLog may estimate a few more visitors than there were scans; never report that.
  counts.uniques = Math.min(uniques, counts.scans);
  return counts;
}
