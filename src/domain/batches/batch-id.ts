// Batch ids: a time prefix (they sort roughly by creation, handy in logs and file listings) and 96 random bits.
import { randomBytes } from 'node:crypto';

/** `bat_` + 9 base36 digits of milliseconds + 16 random base64url characters. */
export function newBatchId(at: Date): string {
  return `bat_${at.getTime().toString(36).padStart(9, '0')}${randomBytes(12).toString('base64url')}`;
}

export const BATCH_ID = /^bat_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;
