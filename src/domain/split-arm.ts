// Where a visitor falls in a code's weighted splits: a keyed hash of who scanned, the UTC day and the code, as a point
// in [0, 100).
import type { HmacSha256 } from './hmac-sha256.js';
import { dayOf } from './scan.js';

const POINT_BITS = 2 ** 48;

/**
 * `visitor` is the unsalted visitor digest (see visitorKey), so the address itself is never hashed here nor kept.
 * The key is the operator's (derived, never stored beside the counts): without it, nobody can work out from an
 * address which arm it gets. One visitor keeps one point for a code all UTC day, on every instance: the point is the
 * first 48 bits of HMAC-SHA-256(key, visitor NUL day NUL code), the same across upgrades.
 */
export function splitPointOf(keyed: HmacSha256, visitor: string, codeId: string, at: Date): number {
  const digest = keyed.hex(`${visitor}\u0000${dayOf(at)}\u0000${codeId}`);
  return (parseInt(digest.slice(0, 12), 16) / POINT_BITS) * 100;
}
