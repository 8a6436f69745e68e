// Groups a list of codes by fingerprint: what a batch reservation counts (each distinct code once, each item once).
import type { QrIdentity } from './ports/usage-meter.js';

/** Each distinct code once, with how many items carry it. */
export function countByFingerprint(qrs: readonly QrIdentity[]): Map<string, { qr: QrIdentity; count: number }> {
  const counts = new Map<string, { qr: QrIdentity; count: number }>();
  for (const qr of qrs) {
    const seen = counts.get(qr.fingerprint);
    if (seen) seen.count++;
    else counts.set(qr.fingerprint, { qr, count: 1 });
  }
  return counts;
}
