// Where a visitor falls in a code's weighted splits: a keyed hash of who scanned, the UTC day and the code, as a point
// in [0, 100).
import { createHmac } from 'node:crypto';
import { dayOf } from './scan.js';

const POINT_BITS = 2 ** 48;

/**
 * `visitor` is the unsalted visitor digest (see visitorKey), so the address itself is never hashed here nor kept.
 * The key is the operator's (derived, never stored beside the counts): without it, nobody can work out from an
 * address which arm it gets. One visitor keeps one point for a code all UTC day, on every instance.
 */
export function splitPointOf(key: Uint8Array, visitor: string, codeId: string, at: Date): number {
  const digest = createHmac('sha256', key)
    .update(visitor)
    .update('\u0000')
    .update(dayOf(at))
    .update('\u0000')
    .update(codeId)
    .digest();
  return (digest.readUIntBE(0, 6) / POINT_BITS) * 100;
}
