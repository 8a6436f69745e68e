// The API key format: prefix, 30 random base62 characters, CRC32 checksum that catches typos offline.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_LENGTH,
  apiKeyHint,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from '../../src/domain/api-key.js';

describe('API key format', () => {
  it('generates distinct keys of the documented shape that pass their own checksum', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(/^qrm_live_[0-9A-Za-z]{36}$/);
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('rejects any single-character change, a wrong prefix and a wrong length', () => {
    const key = generateApiKey();
    for (let i = 'qrm_live_'.length; i < key.length; i++) {
      const swapped = key[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedApiKey(key.slice(0, i) + swapped + key.slice(i + 1))).toBe(false);
    }
    expect(isWellFormedApiKey(key.replace('qrm_live_', 'qrm_test_'))).toBe(false);
    expect(isWellFormedApiKey(key + 'a')).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
  });

  it('hashes with SHA-256, or HMAC under a pepper, and hints with the last four characters', () => {
    const key = generateApiKey();
    expect(hashApiKey(key, undefined)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key, 'pepper-pepper-pepper')).not.toBe(hashApiKey(key, undefined));
    expect(apiKeyHint(key)).toBe(`qrm_live_…${key.slice(-4)}`);
  });

  it('stores the digests createHash and createHmac give, so keys made before stay valid', () => {
    for (const pepper of [undefined, 'pepper-pepper-pepper', 'x'.repeat(100), 'poivre – 胡椒']) {
      for (let i = 0; i < 20; i++) {
        const key = generateApiKey();
        const expected = pepper
          ? createHmac('sha256', pepper).update(key).digest('hex')
          : createHash('sha256').update(key).digest('hex');
        expect(hashApiKey(key, pepper)).toBe(expected);
      }
    }
  });
});
