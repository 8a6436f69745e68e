// Contract suites for the ScanAllowance and GuessLimiter ports: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { GuessLimiter } from '../../src/domain/ports/guess-limiter.js';
import type { ScanAllowance } from '../../src/domain/ports/scan-allowance.js';

export function scanAllowanceContract(adapterName: string, make: () => ScanAllowance): void {
  describe(`ScanAllowance contract: ${adapterName}`, () => {
    it(
      'lets exactly maxScans of many concurrent takes ' +
        'through, each code apart; a raised limit lets more ' +
        'through',
      async () => {
        const allowance = make();
        const code = `dyn_${randomUUID()}`;
        const other = `dyn_${randomUUID()}`;
        const taken = await Promise.all(Array.from({ length: 40 }, () => allowance.take(code, 25)));
        expect(taken.filter(Boolean)).toHaveLength(25);
        expect(await allowance.take(code, 25)).toBe(false);
        expect(await allowance.take(other, 25)).toBe(true);
        expect(await allowance.take(code, 27)).toBe(true);
        expect(await allowance.take(code, 27)).toBe(true);
        expect(await allowance.take(code, 27)).toBe(false);
      },
    );
  });
}

export function guessLimiterContract(adapterName: string, make: () => GuessLimiter): void {
  describe(`GuessLimiter contract: ${adapterName}`, () => {
    it(
      'counts concurrent guesses exactly per key, gives ' +
        'one back on forgive, and answers when the window ' +
        'ends',
      async () => {
        const limiter = make();
        const key = `dyn_${randomUUID()}|127.0.0.1`;
        const now = new Date();
        const results = await Promise.all(Array.from({ length: 10 }, () => limiter.attempt(key, 60_000, now)));
        expect(results.map((r) => r.guesses).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        for (const r of results) {
          expect(r.resetAt.getTime()).toBeGreaterThan(now.getTime());
          expect(r.resetAt.getTime()).toBeLessThanOrEqual(now.getTime() + 60_000);
        }
        await limiter.forgive(key);
        expect((await limiter.attempt(key, 60_000, now)).guesses).toBe(10);
        expect((await limiter.attempt(`${key}-other`, 60_000, now)).guesses).toBe(1);
      },
    );
  });
}
