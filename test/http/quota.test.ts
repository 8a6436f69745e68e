// Monthly quotas: exact at the limit, 429 with Retry-After to the reset, never overshot under concurrency.
import { describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { qrFingerprint } from '../../src/services/render-spec.js';
import { useTestApp, generate } from '../helpers/app.js';

const NOW = new Date('2026-11-30T23:59:00.000Z'); // 60 s before the November period ends

const t = useTestApp({ now: NOW });

/** Counts `n` earlier requests for one code straight into the meter, as if they had been served. */
async function seedRequests(accountId: string, n: number, payload = 'https://example.com/seed') {
  for (let i = 0; i < n; i++) {
    const outcome = await t.stores.meter.reserve({
      accountId,
      period: periodOf(NOW),
      qr: { fingerprint: qrFingerprint('url', payload), type: 'url', payload },
      limits: { requests: 500, qrs: 5 },
      at: NOW,
    });
    expect(outcome.ok).toBe(true);
  }
}

describe('monthly request quota (free: 500)', () => {
  it(
    'serves the 500th request and answers the 501st ' + 'with 429 quota_exceeded and Retry-After to the ' + 'reset',
    async () => {
      const caller = await t.newCaller('free');
      const body = { content: 'https://example.com/same', type: 'url', outputFormat: 'png' };
      // A client pacing itself at 5 requests a second (the free burst is 10), the 500th landing at NOW: the burst is
      // not
      // what this tests.
      const spacingMs = 200;
      try {
        for (let i = 1; i <= 500; i++) {
          t.clock.now = new Date(NOW.getTime() - (500 - i) * spacingMs);
          const res = await generate(t.app, caller.key, body);
          if (res.statusCode !== 200) throw new Error(`request ${i} answered ${res.statusCode}: ${res.body}`);
          if (i === 500) expect(res.headers['x-ratelimit-remaining']).toBe('0');
        }
      } finally {
        t.clock.now = NOW;
      }
      const refused = await generate(t.app, caller.key, body);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('quota_exceeded');
      // The detail says when the quota comes back and which plan allows more.
      expect(refused.json().detail).toBe(
        'the Free plan allows 500 requests a month; the quota resets at 2026-12-01T00:00:00.000Z; the Pro plan ' +
          'allows 100000 requests a month',
      );
      expect(refused.headers['retry-after']).toBe('60');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['ratelimit']).toMatch(/^"monthly";r=0;t=60/);
      expect(await t.stores.meter.usage(caller.accountId, periodOf(NOW))).toEqual({ requests: 500, qrs: 1 });
    },
  );

  it('starts again in the next calendar month', async () => {
    const caller = await t.newCaller('free');
    await seedRequests(caller.accountId, 500);
    const body = { content: 'https://example.com/seed', type: 'url', outputFormat: 'png' };
    expect((await generate(t.app, caller.key, body)).statusCode).toBe(429);
    t.clock.now = new Date('2026-12-01T00:00:01.000Z');
    try {
      const res = await generate(t.app, caller.key, body);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe('499');
    } finally {
      t.clock.now = NOW;
    }
  });

  it('never lets concurrent requests near the limit overshoot it', async () => {
    const caller = await t.newCaller('free');
    // Fewer requests left (5) than the free burst (10), so only the monthly limit can hold the other 55 back.
    await seedRequests(caller.accountId, 495);
    const results = await Promise.all(
      Array.from({ length: 60 }, () =>
        generate(t.app, caller.key, { content: 'https://example.com/seed', type: 'url', outputFormat: 'png' }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 429).map((r) => r.json().code)).toEqual(
      Array(55).fill('quota_exceeded'),
    );
    expect(await t.stores.meter.usage(caller.accountId, periodOf(NOW))).toEqual({ requests: 500, qrs: 1 });
  });
});

describe('monthly QR quota (free: 5 distinct codes)', () => {
  it(
    'answers the 6th distinct code with 429 ' + 'qr_quota_exceeded, while the first five can still be ' + 'regenerated',
    async () => {
      const caller = await t.newCaller('free');
      for (let i = 1; i <= 5; i++) {
        expect(
          (await generate(t.app, caller.key, { content: `code ${i}`, type: 'text', outputFormat: 'png' })).statusCode,
        ).toBe(200);
      }
      const sixth = await generate(t.app, caller.key, { content: 'code 6', type: 'text', outputFormat: 'png' });
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json().code).toBe('qr_quota_exceeded');
      expect(sixth.json().detail).toMatch(
        /the quota resets at 2026-12-01T00:00:00\.000Z; the Pro plan allows \d+ distinct QR codes a month$/,
      );
      expect(sixth.headers['retry-after']).toBe('60');
      // The same code in another format is the same QR: it costs a request, not a new QR.
      const again = await generate(t.app, caller.key, { content: 'code 3', type: 'text', outputFormat: 'webp' });
      expect(again.statusCode).toBe(200);
      expect(again.headers['ratelimit']).toMatch(/"monthly-qrs";r=0/);
      expect(await t.stores.meter.usage(caller.accountId, periodOf(NOW))).toEqual({ requests: 6, qrs: 5 });
    },
  );

  it('admits exactly five of many concurrent distinct codes', async () => {
    const caller = await t.newCaller('free');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        generate(t.app, caller.key, { content: `parallel ${i}`, type: 'text', outputFormat: 'png' }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 429).every((r) => r.json().code === 'qr_quota_exceeded')).toBe(true);
    const usage = await t.stores.meter.usage(caller.accountId, periodOf(NOW));
    expect(usage).toEqual({ requests: 5, qrs: 5 });
    expect(await t.stores.meter.qrs(caller.accountId, periodOf(NOW), 100)).toHaveLength(5);
  });
});
