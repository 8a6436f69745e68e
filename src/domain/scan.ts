// Scans of dynamic codes: the day they count on, the device class, language and place they are split by, the visitor
// digest.
import { hash } from 'node:crypto';

export const DEVICE_CLASSES = ['ios', 'android', 'desktop', 'other'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/** Where a scan came from: never the address itself. */
export interface ScanPlace {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** The first subdivision's name (a state, a province), when known. */
  region?: string | undefined;
  city?: string | undefined;
}

/** One scan as the redirect saw it; `visitor` is hashed with the day's salt before anything is stored. */
export interface Scan {
  codeId: string;
  /** The code's owner: the scan also waits, counted, for the account's scan webhooks (see ScanEventSource). */
  accountId: string;
  at: Date;
  /**
   * Client address and user agent, pre-hashed (see visitorKey): never stored as such; null when uniques are not
   * counted.
   */
  visitor: string | null;
  device: DeviceClass;
  language: string;
  /** The weighted split's arm the scan was sent to (`default:0`, `rules[2]:1`), when a split chose its target. */
  arm?: string | undefined;
  /** Where the scan came from, as the geo lookup found it (never the address); null when unknown or not kept. */
  place: ScanPlace | null;
  /** Counted without a place (not even `other`) or a unique scanner: the scanner's DNT / GPC, or scanPrivacy `none`. */
  anonymous?: boolean | undefined;
  /** A crawler or link preview: counted apart as `bots`, never as a scan, a unique scanner or a webhook event. */
  bot: boolean;
}

/** A code's counts for one UTC day, as absolute values. */
export interface ScanDay {
  codeId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** Scans by people: bots are counted apart. */
  scans: number;
  uniques: number;
  /** Scans by crawlers and link previews. */
  bots: number;
  devices: Partial<Record<DeviceClass, number>>;
  languages: Record<string, number>;
  /** Scans per split arm (see Scan.arm); empty for a code without a split. */
  arms: Record<string, number>;
  /** ISO 3166-1 alpha-2 code (or `other` when unknown) → scans. */
  countries: Record<string, number>;
  /** `country|region|city` (see cityKey) → scans; only with a city database. */
  cities: Record<string, number>;
  /** Two-digit UTC hour → scans. */
  hours: Record<string, number>;
  /** Two-digit UTC hour → unique scanners first seen that day in that hour (they sum to `uniques`). */
  hourUniques: Record<string, number>;
}

/** A day with nothing counted yet. */
export function emptyScanDay(codeId: string, day: string): ScanDay {
  return {
    codeId,
    day,
    scans: 0,
    uniques: 0,
    bots: 0,
    devices: {},
    languages: {},
    arms: {},
    countries: {},
    cities: {},
    hours: {},
    hourUniques: {},
  };
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Adds one scan to its day's counts; `newVisitor`: its visitor was not seen on this code that day yet. */
export function addScan(day: ScanDay, scan: Scan, newVisitor: boolean): void {
  if (scan.bot) {
    day.bots++;
    return;
  }
  day.scans++;
  increment(day.devices, scan.device);
  increment(day.languages, scan.language);
  if (scan.arm !== undefined) increment(day.arms, scan.arm);
  if (!scan.anonymous) increment(day.countries, countryOf(scan.place));
  const city = cityKey(scan.place);
  if (city !== undefined) increment(day.cities, city);
  const hour = hourOf(scan.at);
  increment(day.hours, hour);
  if (!newVisitor) return;
  day.uniques++;
  increment(day.hourUniques, hour);
}

/** The two-digit UTC hour a scan counts in. An invalid date throws toISOString's RangeError, as dayOf does. */
export function hourOf(at: Date): string {
  const hour = at.getUTCHours();
  return Number.isNaN(hour) ? at.toISOString() : twoDigits(hour);
}

export const UNKNOWN_COUNTRY = 'other';

/** The country a scan is counted under. */
export function countryOf(place: ScanPlace | null): string {
  return place?.country ?? UNKNOWN_COUNTRY;
}

/** The key a city is counted under, or undefined when the place has no city. */
export function cityKey(place: ScanPlace | null): string | undefined {
  return place?.city === undefined ? undefined : `${place.country}|${place.region ?? ''}|${place.city}`;
}

/**
 * The UTC day, `YYYY-MM-DD`, as toISOString begins, written from the date's fields: a scan asks for its day several
 * times. An invalid date throws toISOString's RangeError.
 */
export function dayOf(at: Date): string {
  const year = at.getUTCFullYear();
  if (!(year >= 0 && year <= 9_999)) return at.toISOString().slice(0, 10);
  return `${String(year).padStart(4, '0')}-${twoDigits(at.getUTCMonth() + 1)}-${twoDigits(at.getUTCDate())}`;
}

function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const HEADER_SCAN_LIMIT = 512;

// Order matters: iPhone user agents mention "like Mac OS X", Android ones "Linux".
const IOS = /iPhone|iPad|iPod/;
const ANDROID = /Android/;
const DESKTOP = /Windows NT|Macintosh|X11|CrOS/;

export function deviceClassOf(userAgent: string | undefined): DeviceClass {
  if (!userAgent) return 'other';
  const ua = userAgent.slice(0, HEADER_SCAN_LIMIT);
  if (IOS.test(ua)) return 'ios';
  if (ANDROID.test(ua)) return 'android';
  if (DESKTOP.test(ua)) return 'desktop';
  return 'other';
}

const PRIMARY_LANGUAGE = /^\s*([A-Za-z]{2,3})(?:[-_;,\s]|$)/;

/** The primary subtag of the first language the browser asks for (`pt-BR,pt;q=0.9` → `pt`), else `other`. */
export function languageOf(acceptLanguage: string | undefined): string {
  const match = acceptLanguage ? PRIMARY_LANGUAGE.exec(acceptLanguage.slice(0, HEADER_SCAN_LIMIT)) : null;
  return match ? match[1]!.toLowerCase() : 'other';
}

/** An unsalted digest of who scanned, so the raw address never leaves the process; stores salt it again per day. */
export function visitorKey(ip: string, userAgent: string | undefined): string {
  // One call on the joined text, the digest a Hash fed the parts gives (docs/decisions/scan-digests-one-shot.md).
  return hash('sha256', `${ip}\u0000${(userAgent ?? '').slice(0, HEADER_SCAN_LIMIT)}`, 'base64url');
}

/** The visitor as a day's counter sees it: the day's random salt over the visitor key, 64 bits. */
export function saltedVisitor(salt: string, visitor: string): string {
  return hash('sha256', `${salt}\u0000${visitor}`, 'base64url').slice(0, 11);
}

/** One account's scans since they were last taken for its scan webhooks, per code. */
export interface AccountScans {
  accountId: string;
  codes: Array<{ codeId: string; scans: number; devices: Partial<Record<DeviceClass, number>> }>;
}
