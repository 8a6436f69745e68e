// UsageMeter on Redis: one Lua round trip per reservation (burst and monthly checks together) and per refund, exact
// across any number of API instances.
import { randomBytes } from 'node:crypto';
import type { QrType } from '../../domain/content/types.js';
import { endOfPeriod, type PeriodId } from '../../domain/period.js';
import type { UsageLedger } from '../../domain/ports/usage-ledger.js';
import * as port from '../../domain/ports/usage-meter.js';
import { countByFingerprint } from '../../domain/distinct-codes.js';
import { isRedisOutage, neverSent, SILENT_LOG, type AdapterLog, type RedisClient } from './connection.js';
import { assertKeySegment, countedKeys, refundedKeys, UsageKeys } from './usage-keys.js';
import { UsageScripts } from './usage-scripts.redis.js';

/** Counters outlive their month by this much unless the period close shortens it: no reset job is ever needed. */
export const COUNTER_RETENTION_MS = 35 * 24 * 60 * 60 * 1000;

export interface RedisUsageMeterOptions {
  /** Prefix of every key, ending with its separator (default `qrm:`); tests give each case its own. */
  keyPrefix?: string;
  /** Where reads go for periods Redis no longer holds (closed and expired months). */
  archive?: UsageLedger;
  log?: AdapterLog;
  /**
   * How long a reservation can still be refunded (default 300 s): covers a render, and a short outage before a deferred
   * refund.
   */
  reservationTtlSeconds?: number;
  /** Real time for key expiry (Redis expires by its own clock, whatever the service's clock says). */
  wallClock?: () => number;
}

/** A request reservation as this adapter hands it out: the token names its refund marker. */
interface RedisRequestReservation extends port.RequestReservation {
  token: string;
}

/** The reservation as this adapter hands it out: the token names its refund marker. */
interface RedisReservation extends port.Reservation {
  token: string;
}

function isRedisReservation(reservation: port.Reservation): reservation is RedisReservation {
  return typeof (reservation as Partial<RedisReservation>).token === 'string';
}

// Refunds Redis could not take right away (it was down) wait here; bounded so an endless outage cannot eat memory.
const MAX_DEFERRED_REFUNDS = 50_000;
const DEFERRED_RETRY_MS = 500;

export class RedisUsageMeter implements port.UsageMeter {
  readonly #scripts: UsageScripts;
  readonly #keys: UsageKeys;
  readonly #archive: UsageLedger | undefined;
  readonly #log: AdapterLog;
  readonly #reservationTtl: number;
  readonly #wallClock: () => number;
  readonly #redis: RedisClient;
  /** Periods this instance has entered in the periods set: once each, before its first count. */
  readonly #registered = new Set<PeriodId>();
  readonly #deferred = new Map<string, RedisReservation>();
  #retryTimer: NodeJS.Timeout | undefined;
  #retrying = false;

  /** The client stays its creator's to close; call close() first to settle deferred refunds. */
  constructor(redis: RedisClient, options: RedisUsageMeterOptions = {}) {
    this.#redis = redis;
    this.#scripts = new UsageScripts(redis);
    this.#keys = new UsageKeys(options.keyPrefix ?? 'qrm:');
    this.#archive = options.archive;
    this.#log = options.log ?? SILENT_LOG;
    this.#reservationTtl = options.reservationTtlSeconds ?? 300;
    this.#wallClock = options.wallClock ?? Date.now;
  }

  #accountKeys(accountId: string, period: PeriodId) {
    return this.#keys.account(assertKeySegment(period, 'period'), assertKeySegment(accountId, 'account id'));
  }

  /**
   * The periods set spans accounts, so the scripts cannot write it: a period is entered before anything counts in it.
   */
  async #register(period: PeriodId): Promise<void> {
    if (this.#registered.has(period)) return;
    await this.#redis.sadd(this.#keys.periods(), period);
    this.#registered.add(period);
  }

  #expireAt(period: PeriodId): number {
    const at = Math.max(endOfPeriod(period).getTime(), this.#wallClock()) + COUNTER_RETENTION_MS;
    return Math.ceil(at / 1000);
  }

  /** One request through usage-reserve.lua, with its code when the input names one; `token` names the marker. */
  async #runReserve(
    input: port.ReserveInput | port.RequestReserveInput,
    token: string,
  ): Promise<[number, string, number, number, number]> {
    const { accountId, period, limits, burst } = input;
    const code = 'qr' in input ? { qr: input.qr, limit: input.limits.qrs } : undefined;
    const k = this.#accountKeys(accountId, period);
    // Without a burst limit the script skips the burst key; it still takes one, as a script's keys are fixed.
    const burstKey = this.#keys.burst(accountId, burst ? assertKeySegment(burst.key, 'burst key') : '-');
    await this.#register(period);
    return this.#scripts.reserve(
      [...countedKeys(k), this.#keys.reservation(accountId, token), burstKey],
      [
        accountId,
        period,
        code?.qr.fingerprint ?? '',
        code?.qr.type ?? '',
        code?.qr.payload ?? '',
        input.at.getTime(),
        limits.requests ?? 'none',
        code?.limit ?? 'none',
        this.#expireAt(period),
        this.#reservationTtl,
        burst ? burst.perSecond : 'none',
        port.BURST_WINDOW_MS,
        token,
      ],
    );
  }

  async reserve(input: port.ReserveInput): Promise<port.ReserveOutcome> {
    const { accountId, period, qr, burst } = input;
    const reservation: RedisReservation = {
      accountId,
      period,
      fingerprint: qr.fingerprint,
      token: randomBytes(12).toString('base64url'),
    };
    let reply: [number, string, number, number, number];
    try {
      reply = await this.#runReserve(input, reservation.token);
    } catch (error) {
      // The script may have run even though its answer was lost: the caller gets a 503, so take the count back once
      // Redis answers.
      if (isRedisOutage(error) && !neverSent(error)) this.#deferRefund(reservation);
      throw error;
    }
    const [ok, reason, requests, qrs, burstUsed] = reply;
    const usage = { requests, qrs };
    const burstState = burst ? { burst: { used: burstUsed } } : {};
    if (ok === 1) return { ok: true, reservation, usage, ...burstState };
    return {
      ok: false,
      reason: reason === 'rate_limited' || reason === 'qr_quota_exceeded' ? reason : 'quota_exceeded',
      usage,
      ...burstState,
    };
  }

  async admitBurst(burst: port.BurstLimit, at: Date): Promise<port.BurstOutcome> {
    const key = this.#keys.burst(
      assertKeySegment(burst.accountId, 'account id'),
      assertKeySegment(burst.key, 'burst key'),
    );
    const [ok, used] = await this.#scripts.admitBurst(
      [key],
      [at.getTime(), burst.perSecond, port.BURST_WINDOW_MS, randomBytes(12).toString('base64url')],
    );
    return { ok: ok === 1, used };
  }

  async reserveRequest(input: port.RequestReserveInput): Promise<port.RequestReserveOutcome> {
    const { accountId, period, burst } = input;
    const reservation: RedisRequestReservation = { accountId, period, token: randomBytes(12).toString('base64url') };
    const [ok, reason, requests, qrs, burstUsed] = await this.#runReserve(input, reservation.token);
    const usage = { requests, qrs };
    const burstState = burst ? { burst: { used: burstUsed } } : {};
    if (ok === 1) return { ok: true, reservation, usage, ...burstState };
    return { ok: false, reason: reason === 'rate_limited' ? reason : 'quota_exceeded', usage, ...burstState };
  }

  /**
   * Idempotent (the marker is taken once). A decode's refund is not deferred through an outage: the caller's answer is
   * an error then anyway.
   */
  async refundRequest(reservation: port.RequestReservation): Promise<void> {
    const token = (reservation as Partial<RedisRequestReservation>).token;
    if (typeof token !== 'string')
      throw new Error('RedisUsageMeter.refundRequest takes a reservation made by RedisUsageMeter');
    const k = this.#accountKeys(reservation.accountId, reservation.period);
    await this.#redis.sadd(this.#keys.periods(), reservation.period);
    await this.#scripts.refundRequest(
      [k.totals, k.changed, this.#keys.reservation(reservation.accountId, token)],
      [reservation.accountId, reservation.period, this.#expireAt(reservation.period)],
    );
  }

  /**
   * Idempotent. While Redis is down the refund is kept and applied when it returns, so the failed request is never
   * billed.
   */
  async refund(reservation: port.Reservation): Promise<void> {
    if (!isRedisReservation(reservation))
      throw new Error('RedisUsageMeter.refund takes a reservation made by RedisUsageMeter');
    try {
      await this.#runRefund(reservation);
    } catch (error) {
      if (!isRedisOutage(error)) throw error;
      this.#deferRefund(reservation);
    }
  }

  async #runRefund(r: RedisReservation): Promise<void> {
    const k = this.#accountKeys(r.accountId, r.period);
    // A refund may land after its period was closed: entering it again lets the rollup write the refund.
    await this.#redis.sadd(this.#keys.periods(), r.period);
    await this.#scripts.refund(
      [...refundedKeys(k), this.#keys.reservation(r.accountId, r.token)],
      [r.accountId, r.period, r.fingerprint, this.#expireAt(r.period)],
    );
  }

  #deferRefund(reservation: RedisReservation): void {
    if (this.#deferred.size >= MAX_DEFERRED_REFUNDS) {
      this.#log.error({ accountId: reservation.accountId }, 'deferred refund dropped: too many waiting for redis');
      return;
    }
    this.#deferred.set(reservation.token, reservation);
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#retryTimer || this.#deferred.size === 0) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void this.settleDeferredRefunds().then(() => this.#scheduleRetry());
    }, DEFERRED_RETRY_MS);
    this.#retryTimer.unref();
  }

  /** Applies the refunds that waited for Redis; returns how many still wait. */
  async settleDeferredRefunds(): Promise<number> {
    if (this.#retrying) return this.#deferred.size;
    this.#retrying = true;
    try {
      for (const [token, reservation] of [...this.#deferred]) {
        try {
          await this.#runRefund(reservation);
          this.#deferred.delete(token);
        } catch (error) {
          if (isRedisOutage(error)) break;
          this.#deferred.delete(token);
          this.#log.error({ err: error, accountId: reservation.accountId }, 'deferred refund failed');
        }
      }
    } finally {
      this.#retrying = false;
    }
    return this.#deferred.size;
  }

  /** Not deferred on an outage, unlike refund: a batch refused with 503 was never accepted. */
  async reserveBatch(input: port.BatchReserveInput): Promise<port.BatchReserveOutcome> {
    const { accountId, period, limits } = input;
    const k = this.#accountKeys(accountId, period);
    const codes = [...countByFingerprint(input.qrs).values()].flatMap(({ qr, count }) => [
      qr.fingerprint,
      count,
      qr.type,
      qr.payload,
    ]);
    await this.#register(period);
    const [ok, reason, requests, qrs, requestsNeeded, qrsNeeded] = await this.#scripts.reserveBatch(countedKeys(k), [
      accountId,
      period,
      input.at.getTime(),
      limits.requests ?? 'none',
      limits.qrs ?? 'none',
      this.#expireAt(period),
      input.qrs.length,
      ...codes,
    ]);
    const usage = { requests, qrs };
    if (ok === 1) return { ok: true, usage };
    return {
      ok: false,
      reason: reason === 'qr_quota_exceeded' ? reason : 'quota_exceeded',
      usage,
      needed: { requests: requestsNeeded, qrs: qrsNeeded },
    };
  }

  async refundBatchItems(input: port.BatchRefundInput): Promise<number> {
    if (input.items.length === 0) return 0;
    const k = this.#accountKeys(input.accountId, input.period);
    await this.#redis.sadd(this.#keys.periods(), input.period);
    return this.#scripts.refundBatchItems(
      [...refundedKeys(k), this.#keys.batchRefunds(input.accountId, assertKeySegment(input.batchId, 'batch id'))],
      [
        input.accountId,
        input.period,
        this.#expireAt(input.period),
        ...input.items.flatMap((item) => [item.index, item.fingerprint]),
      ],
    );
  }

  async usage(accountId: string, period: PeriodId): Promise<port.Usage> {
    const k = this.#accountKeys(accountId, period);
    const hot = await this.#scripts.usage([k.totals, k.generations]);
    if (hot) return { requests: Number(hot[0]), qrs: Number(hot[1]) };
    return (await this.#archive?.usage(accountId, period)) ?? { requests: 0, qrs: 0 };
  }

  async qrs(accountId: string, period: PeriodId, limit: number): Promise<port.QrRecord[]> {
    if (limit <= 0) return [];
    const k = this.#accountKeys(accountId, period);
    const flat = await this.#scripts.qrs([k.totals, k.generations, k.info, k.recent], limit);
    if (!flat) return (await this.#archive?.qrs(accountId, period, limit)) ?? [];
    const records: port.QrRecord[] = [];
    for (let i = 0; i + 3 < flat.length; i += 4) {
      const info = parseInfo(flat[i + 3]!);
      if (!info) continue;
      records.push({
        fingerprint: flat[i]!,
        type: info.type,
        payload: info.payload,
        generations: Number(flat[i + 2]),
        firstAt: info.firstAt,
        lastAt: new Date(Number(flat[i + 1])),
      });
    }
    return records;
  }

  /** Stops retrying in the background after one last attempt; refunds still waiting are reported and dropped. */
  async close(): Promise<void> {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const left = await this.settleDeferredRefunds();
    if (left > 0) this.#log.error({ refunds: left }, 'redis unreachable at shutdown: deferred refunds dropped');
  }
}

/** The stored [type, payload, firstAt] of a code, or undefined when missing or unreadable. */
export function parseInfo(json: string): { type: QrType; payload: string; firstAt: Date } | undefined {
  if (json === '') return undefined;
  try {
    const [type, payload, firstAt] = JSON.parse(json) as [QrType, string, string];
    return { type, payload, firstAt: new Date(Number(firstAt)) };
  } catch {
    return undefined;
  }
}
