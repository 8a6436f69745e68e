// Dynamic codes: the rules for targets, names and slugs, and the record the stores keep.
import { randomInt } from 'node:crypto';
import type { CodeRouting } from './code-routing.js';
import type { Vanity } from './custom-domain.js';

/** `disabled` is set by an operator only (abuse); the owner can neither set nor lift it. */
export const CODE_STATUSES = ['active', 'paused', 'disabled'] as const;
export type CodeStatus = (typeof CODE_STATUSES)[number];
export const OWNER_STATUSES = ['active', 'paused'] as const;
export type OwnerStatus = (typeof OWNER_STATUSES)[number];

export const TARGET_MAX_LENGTH = 2048;
export const CODE_NAME_MAX_LENGTH = 100;
export const DISABLED_REASON_MAX_LENGTH = 500;

/** Base62, 8 characters: 62^8 ≈ 2.2 × 10^14 slugs, drawn uniformly, so neighbours of a known slug reveal nothing. */
export const SLUG_LENGTH = 8;
export const SLUG_PATTERN = /^[A-Za-z0-9]{8}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface DynamicCode {
  id: string;
  accountId: string;
  slug: string;
  target: string;
  name: string | null;
  status: CodeStatus;
  disabledReason: string | null;
  /** Rules, expiry, scan limit, query forwarding, UTM tags and the password hash (NO_ROUTING when none is set). */
  routing: CodeRouting;
  /** On a custom domain: its short URL is `https://<hostname>/<slug>` (the random slug above stays reserved for it). */
  vanity: Vanity | null;
  /** Scans counted so far, all time: the sum of the code's days in the scan ledger (what `sort=scans` orders by). */
  scans: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What the redirect needs to answer a scan; `deleted` codes keep their slug (never reused) and answer 410. */
export interface SlugTarget {
  codeId: string;
  accountId: string;
  target: string;
  state: CodeStatus | 'deleted';
  /** Cached with the slug, so routing a scan costs no store round trip. */
  routing: CodeRouting;
}

export function newSlug(): string {
  let slug = '';
  for (let i = 0; i < SLUG_LENGTH; i++) slug += BASE62[randomInt(62)];
  return slug;
}

// Controls, spaces and the characters browsers strip or rewrite: a target must mean one thing to every reader.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_CHARACTERS = /[\u0000-\u0020\u007f-\u009f\\]/;
const HTTP_SCHEME = /^https?:\/\//i;

/** Why a target is refused, or undefined when it is an absolute http(s) URL a browser can follow as written. */
export function targetProblem(target: string): string | undefined {
  if (target.length === 0) return 'must not be empty';
  if (target.length > TARGET_MAX_LENGTH) return `must be at most ${TARGET_MAX_LENGTH} characters`;
  if (!HTTP_SCHEME.test(target)) return 'must be an absolute http:// or https:// URL';
  if (UNSAFE_CHARACTERS.test(target)) return 'must not contain spaces, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http:// or https:// URL';
  if (url.hostname === '') return 'must name a host';
  // user:password@host is the classic way to make a link look like another site.
  if (url.username !== '' || url.password !== '') return 'must not contain credentials (user:password@)';
  return undefined;
}
