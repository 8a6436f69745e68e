// The scan's day, hour and visitor digests: the values the stores already hold for today (visitor digests, day keys)
// must come out the same, byte for byte, whatever computes them.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HmacSha256 } from '../../src/domain/hmac-sha256.js';
import { dayOf, hourOf, saltedVisitor, visitorKey } from '../../src/domain/scan.js';
import { splitPointOf } from '../../src/domain/split-arm.js';

const userAgents = [
  undefined,
  '',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1',
  'Navigateur “spécial” 日本語 🙂',
  'x'.repeat(2_000),
];

describe('scan digests', () => {
  it('give the visitor digest of the address and user agent (first 512 characters) as a SHA-256 of the parts', () => {
    for (const ip of ['127.0.0.1', '2001:db8::1', '200.147.67.142'])
      for (const userAgent of userAgents) {
        const expected = createHash('sha256')
          .update(ip)
          .update('\u0000')
          .update((userAgent ?? '').slice(0, 512))
          .digest('base64url');
        expect(visitorKey(ip, userAgent)).toBe(expected);
      }
  });

  it("salt the visitor digest with the day's salt into 11 base64url characters", () => {
    for (let i = 0; i < 50; i++) {
      const salt = randomBytes(16).toString('base64url');
      const visitor = visitorKey(`10.0.0.${i}`, userAgents[i % userAgents.length]);
      const expected = createHash('sha256').update(salt).update('\u0000').update(visitor).digest('base64url');
      expect(saltedVisitor(salt, visitor)).toBe(expected.slice(0, 11));
    }
  });

  it('write the UTC day and hour as toISOString does, from year 0 to 9999, and refuse an invalid date', () => {
    const edges = [
      0,
      Date.parse('0000-01-01T00:00:00Z'),
      Date.UTC(0, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 23),
    ];
    const moments = [...edges, ...Array.from({ length: 2_000 }, () => Math.floor(Math.random() * 253_402_300_799_999))];
    for (const ms of moments) {
      const at = new Date(ms);
      expect(dayOf(at)).toBe(at.toISOString().slice(0, 10));
      expect(hourOf(at)).toBe(at.toISOString().slice(11, 13));
    }
    for (const outside of [new Date(Date.UTC(10_000, 0, 1)), new Date(Date.parse('-000001-12-31T23:00:00Z'))])
      expect(dayOf(outside)).toBe(outside.toISOString().slice(0, 10));
    expect(() => dayOf(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('give HMAC-SHA-256 as RFC 4231 prints it (short, long and over-block keys)', () => {
    const vectors: Array<[Buffer, string, string]> = [
      [Buffer.alloc(20, 0x0b), 'Hi There', 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
      [
        Buffer.from('Jefe'),
        'what do ya want for nothing?',
        '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      ],
      [
        Buffer.alloc(131, 0xaa),
        'Test Using Larger Than Block-Size Key - Hash Key First',
        '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      ],
    ];
    for (const [key, message, expected] of vectors) expect(new HmacSha256(key).hex(message)).toBe(expected);
  });

  it("give createHmac's digest for any key length and text, and keep every visitor's split point", () => {
    const texts = ['', ...userAgents.filter((ua) => ua !== undefined), '\u0000é\u00ff'];
    for (const length of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(length);
      const keyed = new HmacSha256(key);
      for (const text of texts) expect(keyed.hex(text)).toBe(createHmac('sha256', key).update(text).digest('hex'));
    }
    // The point as it was taken before (createHmac fed the parts): a visitor keeps their arm across the upgrade.
    const key = randomBytes(32);
    const keyed = new HmacSha256(key);
    for (let i = 0; i < 200; i++) {
      const visitor = visitorKey(`10.1.${i}.7`, userAgents[i % userAgents.length]);
      const at = new Date(Date.UTC(2026, 10, 1 + (i % 28), i % 24));
      const digest = createHmac('sha256', key)
        .update(visitor)
        .update('\u0000')
        .update(dayOf(at))
        .update('\u0000')
        .update(`dyn_${i}`)
        .digest();
      expect(splitPointOf(keyed, visitor, `dyn_${i}`, at)).toBe((digest.readUIntBE(0, 6) / 2 ** 48) * 100);
    }
  });
});
