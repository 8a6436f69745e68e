// API key format: `qrm_live_` + 30 random base62 characters + a 6-character base62 CRC32 checksum.
import { createHash, createHmac, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'qrm_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const BASE62_ONLY = /^[0-9A-Za-z]+$/;

/** Prefix, length and alphabet: checked apart so every pattern stays a literal the ReDoS guard can read. */
function hasKeyShape(candidate: string): boolean {
  return (
    candidate.length === API_KEY_LENGTH &&
    candidate.startsWith(API_KEY_PREFIX) &&
    BASE62_ONLY.test(candidate.slice(API_KEY_PREFIX.length))
  );
}

function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

function checksumOf(randomPart: string): string {
  return toBase62(crc32(randomPart), CHECKSUM_LENGTH);
}

/** A new key secret; randomInt draws from the CSPRNG without modulo bias. */
export function generateApiKey(): string {
  let randomPart = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) randomPart += BASE62[randomInt(62)];
  return API_KEY_PREFIX + randomPart + checksumOf(randomPart);
}

/**
 * True when the string has the key shape and its checksum matches: malformed or mistyped keys
 * are refused without touching the store, and secret scanners can tell real keys from noise.
 */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!hasKeyShape(candidate)) return false;
  const randomPart = candidate.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + RANDOM_LENGTH);
  return candidate.slice(-CHECKSUM_LENGTH) === checksumOf(randomPart);
}

/**
 * What is stored instead of the key: SHA-256, or HMAC-SHA-256 under QR_KEY_SECRET when the operator
 * sets one (a stolen database then cannot be checked against guessed keys without the secret).
 */
export function hashApiKey(key: string, pepper: string | undefined): string {
  return pepper
    ? createHmac('sha256', pepper).update(key).digest('hex')
    : createHash('sha256').update(key).digest('hex');
}

/** What the portal shows to tell keys apart: the prefix and the last four characters. */
export function apiKeyHint(key: string): string {
  return `${API_KEY_PREFIX}…${key.slice(-4)}`;
}

/** The spec's limit: an account holds at most this many active (unrevoked) keys. */
export const MAX_ACTIVE_KEYS = 5;

/** A key's state at `now`: revoked, past its `expiresAt` (the same instant authentication refuses it), or active. */
export function apiKeyStatus(
  key: { revokedAt?: Date | undefined; expiresAt?: Date | undefined },
  now: Date,
): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt) return 'revoked';
  return key.expiresAt !== undefined && key.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}
