// UsageCounters on Redis: the rollup's view of the metering keys — changed accounts (swept from the slot buckets),
// snapshots, acknowledgements, retirement.
import type { ChainableCommander } from 'ioredis';
import type { PeriodId } from '../../domain/period.js';
import type { UsageCounters } from '../../domain/ports/usage-counters.js';
import type { UsageSnapshot } from '../../domain/ports/usage-ledger.js';
import type { QrRecord } from '../../domain/ports/usage-meter.js';
import { SILENT_LOG, type AdapterLog, type RedisClient } from './connection.js';
import { eachBucket, nonEmptyBuckets } from './slot-tags.js';
import { parseInfo } from './usage-meter.redis.js';
import { assertKeySegment, UsageKeys } from './usage-keys.js';
import { UsageScripts } from './usage-scripts.redis.js';

export interface RedisUsageCountersOptions {
  /** Same prefix as the meter's (default `qrm:`). */
  keyPrefix?: string;
  /** Codes per snapshot; an account with more changed codes is offered again until all are written. */
  maxQrsPerSnapshot?: number;
  log?: AdapterLog;
}

/** What acknowledging a snapshot needs: the change version of each code it carried. */
interface Receipt {
  changes: Array<[fingerprint: string, changeVersion: string]>;
}

type SnapshotReply = [requests: string, version: string, qrs: number, codes: string[]] | null;

export class RedisUsageCounters implements UsageCounters {
  readonly #redis: RedisClient;
  readonly #scripts: UsageScripts;
  readonly #keys: UsageKeys;
  readonly #maxQrs: number;
  readonly #log: AdapterLog;
  readonly #receipts = new WeakMap<UsageSnapshot, Receipt>();

  /** The client stays its creator's to close. */
  constructor(redis: RedisClient, options: RedisUsageCountersOptions = {}) {
    this.#redis = redis;
    this.#scripts = new UsageScripts(redis);
    this.#keys = new UsageKeys(options.keyPrefix ?? 'qrm:');
    this.#maxQrs = options.maxQrsPerSnapshot ?? 1_000;
    this.#log = options.log ?? SILENT_LOG;
  }

  async periods(): Promise<PeriodId[]> {
    return (await this.#redis.smembers(this.#keys.periods())).sort();
  }

  async changed(period: PeriodId, limit: number): Promise<UsageSnapshot[]> {
    assertKeySegment(period, 'period');
    // The buckets holding something are read (one script per master): the accounts changed anywhere, up to `limit`.
    const buckets = await nonEmptyBuckets(this.#redis, (tag) => this.#keys.changedBucket(period, tag), {
      members: limit,
    });
    const accountIds = buckets.flatMap(({ read }) => read).slice(0, limit);
    if (accountIds.length === 0) return [];
    // Each account's snapshot is one script in its own slot: sent together, answered in one round trip per master.
    const replies = await Promise.all(
      accountIds.map((accountId) => {
        const k = this.#keys.account(period, accountId);
        return this.#scripts.snapshotOf(
          [k.totals, k.generations, k.info, k.recent, k.changedQrs],
          this.#maxQrs,
        ) as Promise<SnapshotReply>;
      }),
    );
    const snapshots: UsageSnapshot[] = [];
    const gone: string[] = [];
    replies.forEach((reply, i) => {
      const accountId = accountIds[i]!;
      if (reply === null) gone.push(accountId);
      else snapshots.push(this.#toSnapshot(accountId, period, reply));
    });
    // Counters that expired have nothing left to write: an empty record must never overwrite the ledger.
    await Promise.all(
      gone.map((accountId) => this.#redis.srem(this.#keys.account(period, accountId).changed, accountId)),
    );
    return snapshots;
  }

  #toSnapshot(
    accountId: string,
    period: PeriodId,
    [requests, version, qrs, codes]: NonNullable<SnapshotReply>,
  ): UsageSnapshot {
    const records: QrRecord[] = [];
    const removed: string[] = [];
    const changes: Receipt['changes'] = [];
    for (let i = 0; i + 4 < codes.length; i += 5) {
      const fingerprint = codes[i]!;
      changes.push([fingerprint, codes[i + 1]!]);
      const generations = Number(codes[i + 2]);
      if (generations <= 0) {
        removed.push(fingerprint);
        continue;
      }
      const info = parseInfo(codes[i + 3]!);
      if (!info) {
        this.#log.warn({ accountId, period, fingerprint }, 'usage rollup: unreadable QR record skipped');
        continue;
      }
      records.push({
        fingerprint,
        type: info.type,
        payload: info.payload,
        generations,
        firstAt: info.firstAt,
        lastAt: new Date(Number(codes[i + 4])),
      });
    }
    const snapshot: UsageSnapshot = {
      accountId,
      period,
      version: Number(version),
      usage: { requests: Number(requests), qrs: Number(qrs) },
      qrs: records,
      removed,
    };
    this.#receipts.set(snapshot, { changes });
    return snapshot;
  }

  async acknowledge(snapshots: readonly UsageSnapshot[]): Promise<void> {
    if (snapshots.length === 0) return;
    const receipts = snapshots.map((snapshot) => {
      const receipt = this.#receipts.get(snapshot);
      if (!receipt) throw new Error('acknowledge takes the snapshots RedisUsageCounters.changed returned');
      return receipt;
    });
    await Promise.all(
      snapshots.map((snapshot, i) => {
        const k = this.#keys.account(snapshot.period, snapshot.accountId);
        return this.#scripts.acknowledgeOf(
          [k.totals, k.changedQrs, k.changed],
          [snapshot.accountId, String(snapshot.version), ...receipts[i]!.changes.flat()],
        );
      }),
    );
  }

  async retire(period: PeriodId, expireAt: Date): Promise<void> {
    const at = Math.ceil(expireAt.getTime() / 1000);
    assertKeySegment(period, 'period');
    const buckets = await eachBucket(this.#redis, (pipeline, tag) =>
      pipeline.scard(this.#keys.accountsBucket(period, tag)),
    );
    for (const { tag, replies } of buckets) {
      if (Number(replies[0]) === 0) continue;
      const accounts = this.#keys.accountsBucket(period, tag);
      let cursor = '0';
      // SSCAN pages through the bucket's accounts; bounded so a corrupt cursor cannot loop forever.
      for (let page = 0; page < 1_000_000; page++) {
        const [next, accountIds] = await this.#redis.sscan(accounts, cursor, 'COUNT', 500);
        // LT: only ever brings the expiry closer. An account's keys share its slot: one pipeline each.
        await Promise.all(
          accountIds.map((accountId) => {
            const k = this.#keys.account(period, accountId);
            const pipeline = this.#redis.pipeline();
            for (const key of [k.totals, k.generations, k.info, k.recent, k.changedQrs])
              pipeline.expireat(key, at, 'LT');
            return execOrThrow(pipeline);
          }),
        );
        cursor = next;
        if (cursor === '0') break;
      }
    }
    await eachBucket(this.#redis, (pipeline, tag) => {
      pipeline
        .expireat(this.#keys.accountsBucket(period, tag), at, 'LT')
        .expireat(this.#keys.changedBucket(period, tag), at, 'LT');
    });
    await this.#redis.srem(this.#keys.periods(), period);
  }
}

/** Runs a pipeline and throws its first failure (ioredis reports per-command errors in the result). */
async function execOrThrow(pipeline: ChainableCommander): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
