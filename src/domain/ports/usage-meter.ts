// Port: monthly metering of requests and distinct QR codes, with reserve-then-refund.
import type { QrType } from '../content/types.js';
import type { PeriodId } from '../period.js';

export interface Usage {
  requests: number;
  qrs: number;
}

export interface UsageLimits {
  requests: number;
  qrs: number;
}

/** One distinct code: the fingerprint identifies (type, payload); type and payload are kept for the QR manager. */
export interface QrIdentity {
  fingerprint: string;
  type: QrType;
  payload: string;
}

export interface Reservation {
  accountId: string;
  period: PeriodId;
  fingerprint: string;
}

export type ReserveOutcome =
  | { ok: true; reservation: Reservation; usage: Usage }
  | { ok: false; reason: 'quota_exceeded' | 'qr_quota_exceeded'; usage: Usage };

export interface QrRecord {
  fingerprint: string;
  type: QrType;
  payload: string;
  generations: number;
  firstAt: Date;
  lastAt: Date;
}

/**
 * Contract (test/contracts/usage-meter.contract.ts):
 * - `reserve` checks and counts in one atomic step: under any concurrency, `requests` never
 *   exceeds `limits.requests` and the distinct codes never exceed `limits.qrs`; a rejected
 *   reservation changes nothing.
 * - a code already counted in the period costs a request but no new QR.
 * - `refund` undoes exactly one reservation: the request, and the QR when no other successful
 *   generation of it remains in the period.
 * - `usage` after reserve/refund equals what was acknowledged.
 */
export interface UsageMeter {
  reserve(input: { accountId: string; period: PeriodId; qr: QrIdentity; limits: UsageLimits; at: Date }): Promise<ReserveOutcome>;
  refund(reservation: Reservation): Promise<void>;
  usage(accountId: string, period: PeriodId): Promise<Usage>;
  /** The account's codes in the period, most recently generated first. */
  qrs(accountId: string, period: PeriodId, limit: number): Promise<QrRecord[]>;
}
