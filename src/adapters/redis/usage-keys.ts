// The Redis key layout of usage metering: per account under its hash tag, per period, so a new month starts from
// nothing.
import type { PeriodId } from '../../domain/period.js';
import { accountTag, bucketTagOf } from './slot-tags.js';

/** The keys holding one account's usage in one period, all in the account's slot. */
export interface AccountPeriodKeys {
  /** HASH requests, version (bumped by every change, for the rollup). */
  totals: string;
  /** HASH fingerprint → successful generations; its length is the distinct-QR count. */
  generations: string;
  /** HASH fingerprint → JSON [type, payload, firstAt ms]. */
  info: string;
  /** ZSET fingerprint scored by the last generation time (ms), for the QR list. */
  recent: string;
  /** ZSET fingerprint scored by the version of its last change not yet rolled up. */
  changedQrs: string;
  /** SET, in the slot's bucket: accounts of this slot with usage in the period (to expire them at the close). */
  accounts: string;
  /** SET, in the slot's bucket: accounts of this slot changed since their last acknowledged rollup. */
  changed: string;
}

/** The keys a count writes, in the order the count scripts (reserve, reserve-batch, legacy-merge) take them first. */
export function countedKeys(k: AccountPeriodKeys): string[] {
  return [k.totals, k.generations, k.info, k.recent, k.changedQrs, k.accounts, k.changed];
}

/** The keys a refund writes (all but `accounts`: the account keeps its usage), in the refund scripts' order. */
export function refundedKeys(k: AccountPeriodKeys): string[] {
  return [k.totals, k.generations, k.info, k.recent, k.changedQrs, k.changed];
}

export class UsageKeys {
  readonly #prefix: string;
  readonly #burstPrefix: string;

  /** `prefix` ends with its separator, e.g. `qrm:`. */
  constructor(prefix: string) {
    this.#prefix = `${prefix}usage:`;
    this.#burstPrefix = `${prefix}burst:`;
  }

  account(period: PeriodId, accountId: string): AccountPeriodKeys {
    const base = `${this.#prefix}${accountTag(accountId)}:${period}:`;
    const bucket = bucketTagOf(accountId);
    return {
      totals: `${base}totals`,
      generations: `${base}gens`,
      info: `${base}info`,
      recent: `${base}recent`,
      changedQrs: `${base}changed`,
      accounts: this.accountsBucket(period, bucket),
      changed: this.changedBucket(period, bucket),
    };
  }

  /** SET of one slot bucket's accounts with usage in the period. */
  accountsBucket(period: PeriodId, bucketTag: string): string {
    return `${this.#prefix}${bucketTag}:${period}:accounts`;
  }

  /** SET of one slot bucket's accounts changed since their last acknowledged rollup. */
  changedBucket(period: PeriodId, bucketTag: string): string {
    return `${this.#prefix}${bucketTag}:${period}:changed`;
  }

  /**
   * SET of periods still holding counters (not yet closed); written apart from the scripts, once a period per instance.
   */
  periods(): string {
    return `${this.#prefix}periods`;
  }

  /**
   * ZSET of one burst key's admitted reservations (token scored by time, ms) in the last second; not tied to a period.
   */
  burst(accountId: string, burstKey: string): string {
    return `${this.#burstPrefix}${accountTag(accountId)}:${burstKey}`;
  }

  /** SET of a batch's item indexes already refunded: each item is given back once. */
  batchRefunds(accountId: string, batchId: string): string {
    return `${this.#prefix}${accountTag(accountId)}:batch-refunds:${batchId}`;
  }

  /** Short-lived marker of one reservation: a refund applies only while it exists, so refunds are idempotent. */
  reservation(accountId: string, token: string): string {
    return `${this.#prefix}${accountTag(accountId)}:reservation:${token}`;
  }
}

/** Account ids and periods become key segments: refuse anything that could break the layout. */
export function assertKeySegment(value: string, what: string): string {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(value))
    throw new Error(`${what} cannot be used in a Redis key: ${JSON.stringify(value)}`);
  return value;
}
