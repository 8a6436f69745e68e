// UsageCounters on Redis: the rollup's view of the metering keys — changed accounts, consistent snapshots, acknowledgements, retirement.
import type { ChainableCommander, Redis } from 'ioredis';
import type { PeriodId } from '../../domain/period.js';
import type { UsageCounters } from '../../domain/ports/usage-counters.js';
import type { UsageSnapshot } from '../../domain/ports/usage-ledger.js';
import type { QrRecord } from '../../domain/ports/usage-meter.js';
import { SILENT_LOG, type AdapterLog } from './connection.js';
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

/** Runs a pipeline and throws its first failure (ioredis reports per-command errors in the result). */
async function execOrThrow(pipeline: ChainableCommander): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

export class RedisUsageCounters implements UsageCounters {
  readonly #redis: Redis;
  readonly #scripts: UsageScripts;
  readonly #keys: UsageKeys;
  readonly #maxQrs: number;
  readonly #log: AdapterLog;
  readonly #receipts = new WeakMap<UsageSnapshot, Receipt>();

  /** The client stays its creator's to close. */
  constructor(redis: Redis, options: RedisUsageCountersOptions = {}) {
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
    const accountIds = await this.#redis.srandmember(this.#keys.changed(assertKeySegment(period, 'period')), limit);
    if (accountIds.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const accountId of accountIds) {
      const k = this.#keys.account(period, accountId);
      this.#scripts.snapshot(pipeline, [k.totals, k.generations, k.info, k.recent, k.changedQrs], this.#maxQrs);
    }
    const replies = (await execOrThrow(pipeline)) as SnapshotReply[];
    const snapshots: UsageSnapshot[] = [];
    const gone: string[] = [];
    replies.forEach((reply, i) => {
      const accountId = accountIds[i]!;
      if (reply === null) gone.push(accountId);
      else snapshots.push(this.#toSnapshot(accountId, period, reply));
    });
    // Counters that expired have nothing left to write: an empty record must never overwrite the ledger.
    if (gone.length > 0) await this.#redis.srem(this.#keys.changed(period), ...gone);
    return snapshots;
  }

  #toSnapshot(accountId: string, period: PeriodId, [requests, version, qrs, codes]: NonNullable<SnapshotReply>): UsageSnapshot {
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
      records.push({ fingerprint, type: info.type, payload: info.payload, generations, firstAt: info.firstAt, lastAt: new Date(Number(codes[i + 4])) });
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
    const pipeline = this.#redis.pipeline();
    for (const snapshot of snapshots) {
      const receipt = this.#receipts.get(snapshot);
      if (!receipt) throw new Error('acknowledge takes the snapshots RedisUsageCounters.changed returned');
      const k = this.#keys.account(snapshot.period, snapshot.accountId);
      this.#scripts.acknowledge(
        pipeline,
        [k.totals, k.changedQrs, this.#keys.changed(snapshot.period)],
        [snapshot.accountId, String(snapshot.version), ...receipt.changes.flat()],
      );
    }
    await execOrThrow(pipeline);
  }

  async retire(period: PeriodId, expireAt: Date): Promise<void> {
    const at = Math.ceil(expireAt.getTime() / 1000);
    const accounts = this.#keys.accounts(assertKeySegment(period, 'period'));
    let cursor = '0';
    // SSCAN pages through the accounts; bounded so a corrupt cursor cannot loop forever.
    for (let page = 0; page < 1_000_000; page++) {
      const [next, accountIds] = await this.#redis.sscan(accounts, cursor, 'COUNT', 500);
      const pipeline = this.#redis.pipeline();
      for (const accountId of accountIds) {
        const k = this.#keys.account(period, accountId);
        // LT: only ever brings the expiry closer.
        for (const key of [k.totals, k.generations, k.info, k.recent, k.changedQrs]) pipeline.expireat(key, at, 'LT');
      }
      if (accountIds.length > 0) await execOrThrow(pipeline);
      cursor = next;
      if (cursor === '0') break;
    }
    await execOrThrow(this.#redis.pipeline().expireat(accounts, at, 'LT').expireat(this.#keys.changed(period), at, 'LT').srem(this.#keys.periods(), period));
  }
}
