// Port: monthly metering of requests and distinct QR codes, with reserve-then-refund, and the per-key burst limit.
import type { QrType } from '../content/types.js';
import type { PeriodId } from '../period.js';

export interface Usage {
  requests: number;
  qrs: number;
}

/**
 * null: unlimited — that check is skipped (usage is still counted: the dashboard, `qrm usage` and the QR list show it).
 */
export interface UsageLimits {
  requests: number | null;
  qrs: number | null;
}

/** The burst window: one second, sliding. */
export const BURST_WINDOW_MS = 1_000;

/** The short-term ceiling: at most `perSecond` admitted reservations for `key` in any one-second window. */
export interface BurstLimit {
  /** The account the key belongs to: a store may keep the window beside the account's counters. */
  accountId: string;
  /** Whose budget: the API key id (the portal playground, which has no key, passes one bucket per account). */
  key: string;
  perSecond: number;
}

/** The burst window as the reservation left it. */
export interface BurstUsage {
  /** Reservations admitted for the key in the second before `at`, this one included when admitted. */
  used: number;
}

/** A burst slot asked for alone (a batch post, a logo upload): these calls share the key's window with `reserve`. */
export interface BurstOutcome {
  ok: boolean;
  /** Slots taken in the second before `at`, this one included when admitted. */
  used: number;
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

/** `burst` is there exactly when the input had a burst limit. */
export type ReserveOutcome =
  | { ok: true; reservation: Reservation; usage: Usage; burst?: BurstUsage }
  | { ok: false; reason: 'rate_limited' | 'quota_exceeded' | 'qr_quota_exceeded'; usage: Usage; burst?: BurstUsage };

export interface ReserveInput {
  accountId: string;
  period: PeriodId;
  qr: QrIdentity;
  limits: UsageLimits;
  /**
   * Omitted: no short-term ceiling and no burst window kept at all (generateQr omits it for a plan with an unlimited
   * burst).
   */
  burst?: BurstLimit;
  /** The caller's clock: the code's generation time and the end of the burst window (the period is passed apart). */
  at: Date;
}

export interface QrRecord {
  fingerprint: string;
  type: QrType;
  payload: string;
  generations: number;
  firstAt: Date;
  lastAt: Date;
}

/** A whole batch reserved in one step: one request per item, one QR per code new this period. */
export interface BatchReserveInput {
  accountId: string;
  period: PeriodId;
  /** One entry per item, repeats allowed (each costs a request, a code counts once). */
  qrs: QrIdentity[];
  limits: UsageLimits;
  at: Date;
}

export type BatchReserveOutcome =
  | { ok: true; usage: Usage }
  | { ok: false; reason: 'quota_exceeded' | 'qr_quota_exceeded'; usage: Usage; needed: Usage };

/**
 * A call that is metered as a request but makes no code (a decode): the burst, then the monthly requests, checked and
 * counted in one step.
 */
export interface RequestReserveInput {
  accountId: string;
  period: PeriodId;
  /** Only `requests` is checked: no QR is counted, so the QR limit never refuses. */
  limits: Pick<UsageLimits, 'requests'>;
  /** As in `ReserveInput`: omitted, no burst window is kept. */
  burst?: BurstLimit;
  at: Date;
}

/** What `refundRequest` takes back: one request of the period, once. */
export interface RequestReservation {
  accountId: string;
  period: PeriodId;
}

export type RequestReserveOutcome =
  | { ok: true; reservation: RequestReservation; usage: Usage; burst?: BurstUsage }
  | { ok: false; reason: 'rate_limited' | 'quota_exceeded'; usage: Usage; burst?: BurstUsage };

/**
 * Items of a batch given back (failed or cancelled); each (batchId, index) is refunded at most once, whoever asks
 * again.
 */
export interface BatchRefundInput {
  accountId: string;
  period: PeriodId;
  batchId: string;
  items: Array<{ index: number; fingerprint: string }>;
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
 * - with `burst`, the same step also admits at most `burst.perSecond` reservations per `burst.key`
 *   in any sliding window of 1000 ms ending at `at` (those made at `at - 1000` or earlier have left
 *   it). The burst is checked first, then the requests, then the QRs: a `rate_limited` refusal, like
 *   every refusal, counts nothing anywhere. Only admitted reservations enter the window, and a
 *   refund does not take them out (the burst bounds the work served, not the bill).
 */
export interface UsageMeter {
  reserve(input: ReserveInput): Promise<ReserveOutcome>;
  refund(reservation: Reservation): Promise<void>;
  /**
   * All of the batch or nothing: admitted only when `requests + qrs.length` and the distinct codes new
   * this period both fit their limits, checked and counted in one atomic step (no burst: a batch is one call).
   */
  reserveBatch(input: BatchReserveInput): Promise<BatchReserveOutcome>;
  /**
   * One slot of `burst.key`'s window at `at`, the same window `reserve` fills: refused (nothing taken, nothing
   * counted anywhere) when `burst.perSecond` slots were taken in the last second. Monthly counts are not touched.
   */
  admitBurst(burst: BurstLimit, at: Date): Promise<BurstOutcome>;
  /**
   * One request and no QR (a decode): the burst (when given), then `limits.requests`, checked and counted in one
   * atomic step, exactly as `reserve` does for those two; a refusal counts nothing. The QR count and list are
   * untouched.
   */
  reserveRequest(input: RequestReserveInput): Promise<RequestReserveOutcome>;
  /** Undoes one `reserveRequest`, at most once however often it is called; its burst slot stays taken. */
  refundRequest(reservation: RequestReservation): Promise<void>;
  /** Idempotent per (batchId, index): returns how many items this call refunded. */
  refundBatchItems(input: BatchRefundInput): Promise<number>;
  usage(accountId: string, period: PeriodId): Promise<Usage>;
  /** The account's codes in the period, most recently generated first. */
  qrs(accountId: string, period: PeriodId, limit: number): Promise<QrRecord[]>;
}
