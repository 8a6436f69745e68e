// The Redis key layout of usage metering: everything keyed by period, so a new month starts from nothing without a reset.
import type { PeriodId } from '../../domain/period.js';

/** The keys holding one account's usage in one period. */
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
    const base = `${this.#prefix}${period}:${accountId}:`;
    return { totals: `${base}totals`, generations: `${base}gens`, info: `${base}info`, recent: `${base}recent`, changedQrs: `${base}changed` };
  }

  /** SET of accounts with usage in the period (to expire them at the close). */
  accounts(period: PeriodId): string {
    return `${this.#prefix}${period}:accounts`;
  }

  /** SET of accounts changed since their last acknowledged rollup. */
  changed(period: PeriodId): string {
    return `${this.#prefix}${period}:changed`;
  }

  /** SET of periods still holding counters (not yet closed). */
  periods(): string {
    return `${this.#prefix}periods`;
  }

  /** ZSET of one burst key's admitted reservations (token scored by time, ms) in the last second; not tied to a period. */
  burst(burstKey: string): string {
    return `${this.#burstPrefix}${burstKey}`;
  }

  /** SET of a batch's item indexes already refunded: each item is given back once. */
  batchRefunds(batchId: string): string {
    return `${this.#prefix}batch-refunds:${batchId}`;
  }

  /** Short-lived marker of one reservation: a refund applies only while it exists, so refunds are idempotent. */
  reservation(token: string): string {
    return `${this.#prefix}reservation:${token}`;
  }
}

/** Account ids and periods become key segments: refuse anything that could break the layout. */
export function assertKeySegment(value: string, what: string): string {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(value)) throw new Error(`${what} cannot be used in a Redis key: ${JSON.stringify(value)}`);
  return value;
}
