// The quota's unit, one distinct code per (type, payload): the fingerprints already counted this month must come out
// the same, byte for byte, whatever computes them.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { qrFingerprint } from '../../src/services/render-spec.js';

describe('qrFingerprint', () => {
  it('is the SHA-256 of type, NUL and payload as a Hash fed the parts gives it, for any text', () => {
    const payloads = ['', 'https://example.com', 'Grüße 日本語 🙂', '\u0000x', 'a'.repeat(5_000), '\ud800 lone'];
    for (const type of ['url', 'text', 'wifi', 'vcard'] as const)
      for (const payload of payloads)
        expect(qrFingerprint(type, payload)).toBe(
          createHash('sha256').update(type).update('\u0000').update(payload).digest('hex'),
        );
  });

  it('tells the type apart: the same payload as url and text is two codes', () => {
    expect(qrFingerprint('url', 'https://example.com')).not.toBe(qrFingerprint('text', 'https://example.com'));
  });
});
