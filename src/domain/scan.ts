// Scans of dynamic codes: the day they count on, the device class and language they are split by, the visitor digest.
import { createHash } from 'node:crypto';

export const DEVICE_CLASSES = ['ios', 'android', 'desktop', 'other'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/** One scan as the redirect saw it; `visitor` is hashed with the day's salt before anything is stored. */
export interface Scan {
  codeId: string;
  /** The code's owner: the scan also waits, counted, for the account's scan webhooks (see ScanEventSource). */
  accountId: string;
  at: Date;
  /** Client address and user agent, pre-hashed (see visitorKey): never stored as such. */
  visitor: string;
  device: DeviceClass;
  language: string;
  /** The weighted split's arm the scan was sent to (`default:0`, `rules[2]:1`), when a split chose its target. */
  arm?: string | undefined;
}

/** A code's counts for one UTC day, as absolute values. */
export interface ScanDay {
  codeId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  scans: number;
  uniques: number;
  devices: Partial<Record<DeviceClass, number>>;
  languages: Record<string, number>;
  /** Scans per split arm (see Scan.arm); empty for a code without a split. */
  arms: Record<string, number>;
}

export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
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
  return createHash('sha256')
    .update(ip)
    .update('\u0000')
    .update((userAgent ?? '').slice(0, HEADER_SCAN_LIMIT))
    .digest('base64url');
}

/** The visitor as a day's counter sees it: the day's random salt over the visitor key, 64 bits. */
export function saltedVisitor(salt: string, visitor: string): string {
  return createHash('sha256').update(salt).update('\u0000').update(visitor).digest('base64url').slice(0, 11);
}

/** One account's scans since they were last taken for its scan webhooks, per code. */
export interface AccountScans {
  accountId: string;
  codes: Array<{ codeId: string; scans: number; devices: Partial<Record<DeviceClass, number>> }>;
}
