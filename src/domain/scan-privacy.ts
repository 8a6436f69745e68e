// How much of a scan is kept: the account's scanPrivacy setting and the scanner's own Do-Not-Track / Global Privacy
// Control.
import type { Scan, ScanPlace } from './scan.js';

/**
 * `country` (the default): the country only; `city`: region and city too (with a city database); `none`: no place, no
 * uniques.
 */
export const SCAN_PRIVACY_LEVELS = ['country', 'city', 'none'] as const;
export type ScanPrivacy = (typeof SCAN_PRIVACY_LEVELS)[number];
export const DEFAULT_SCAN_PRIVACY: ScanPrivacy = 'country';

export function isScanPrivacy(value: unknown): value is ScanPrivacy {
  return typeof value === 'string' && (SCAN_PRIVACY_LEVELS as readonly string[]).includes(value);
}

/** `DNT: 1` or `Sec-GPC: 1`: the scanner asked not to be tracked. */
export function asksNotToBeTracked(headers: Record<string, string | string[] | undefined>): boolean {
  return headers.dnt === '1' || headers['sec-gpc'] === '1';
}

/**
 * What a scan keeps of where it came from and who made it: the place trimmed to the level, the visitor only with a
 * place.
 */
export function keptOfScan(
  privacy: ScanPrivacy,
  notTracked: boolean,
  place: ScanPlace | null,
  visitor: string,
): Pick<Scan, 'place' | 'visitor' | 'anonymous'> {
  if (privacy === 'none' || notTracked) return { place: null, visitor: null, anonymous: true };
  if (privacy === 'city' || place === null) return { place, visitor, anonymous: false };
  return { place: { country: place.country }, visitor, anonymous: false };
}
