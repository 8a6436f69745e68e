// Code passwords: scrypt (memory-hard) with a random salt per hash, compared in constant time.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const PASSWORD_LENGTH = { min: 4, max: 128 } as const;

/** N = 2^14, r = 8: 16 MiB and tens of milliseconds per try, on the libuv pool rather than the event loop. */
const COST = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$key` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const HASH = /^scrypt\$(\d{1,7})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{1,64})\$([A-Za-z0-9_-]{1,128})$/;

export async function passwordMatches(password: string, hash: string): Promise<boolean> {
  const match = HASH.exec(hash);
  if (!match) return false;
  const expected = Buffer.from(match[5]!, 'base64url');
  const key = await derive(password, Buffer.from(match[4]!, 'base64url'), {
    N: Number(match[1]),
    r: Number(match[2]),
    p: Number(match[3]),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
