// The qr_codes row as SQLite returns it, and its domain record.
import type { QrType } from '../../domain/content/types.js';
import type { QrRecord } from '../../domain/ports/usage-meter.js';

export interface QrRow {
  fingerprint: string;
  type: string;
  payload: string;
  generations: number;
  first_at: number;
  last_at: number;
}

export function toQrRecord(row: QrRow): QrRecord {
  return {
    fingerprint: row.fingerprint,
    type: row.type as QrType,
    payload: row.payload,
    generations: row.generations,
    firstAt: new Date(row.first_at),
    lastAt: new Date(row.last_at),
  };
}
