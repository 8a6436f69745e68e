// Contract suite for the LastUsedLog port: every adapter runs these same cases.
import { describe, expect, it } from 'vitest';
import type { LastUsedLog } from '../../src/domain/ports/last-used-log.js';

/**
 * `makeLogs` returns logs sharing one backing store (one per process in production); the first is used alone where one
 * suffices.
 * An adapter that lives in one process (`sharedAcrossProcesses: false`) returns one log, and the case about several
 * processes
 * is skipped for it, visibly, rather than run where it could not fail.
 */
export function lastUsedLogContract(
  adapterName: string,
  makeLogs: () => Promise<LastUsedLog[]> | LastUsedLog[],
  options: { sharedAcrossProcesses: boolean },
): void {
  describe(`LastUsedLog contract: ${adapterName}`, () => {
    it('takes the latest time recorded per key', async () => {
      const [log] = await makeLogs();
      log!.record('key_a', new Date(2_000));
      log!.record('key_a', new Date(1_000));
      log!.record('key_b', new Date(3_000));
      const batch = await log!.take(10);
      expect(batch.entries.sort((x, y) => x.keyId.localeCompare(y.keyId))).toEqual([
        { keyId: 'key_a', at: new Date(2_000) },
        { keyId: 'key_b', at: new Date(3_000) },
      ]);
    });

    it('forgets committed entries but keeps a later time recorded while the batch was written', async () => {
      const [log] = await makeLogs();
      log!.record('key_a', new Date(1_000));
      log!.record('key_b', new Date(1_000));
      const batch = await log!.take(10);
      log!.record('key_b', new Date(5_000));
      await batch.commit();
      expect((await log!.take(10)).entries).toEqual([{ keyId: 'key_b', at: new Date(5_000) }]);
    });

    it('gives back a batch that was never committed', async () => {
      const [log] = await makeLogs();
      log!.record('key_a', new Date(1_000));
      await log!.take(10);
      expect((await log!.take(10)).entries).toEqual([{ keyId: 'key_a', at: new Date(1_000) }]);
    });

    it('takes no more than the limit, and the rest on the next take', async () => {
      const [log] = await makeLogs();
      for (let i = 0; i < 5; i++) log!.record(`key_${i}`, new Date(1_000 + i));
      const first = await log!.take(3);
      expect(first.entries.length).toBeGreaterThan(0);
      expect(first.entries.length).toBeLessThanOrEqual(3);
      await first.commit();
      const rest = await log!.take(10);
      expect(new Set([...first.entries, ...rest.entries].map((e) => e.keyId)).size).toBe(5);
      expect(rest.entries).toHaveLength(5 - first.entries.length);
    });

    it.skipIf(!options.sharedAcrossProcesses)('takes what every process sharing the log recorded', async () => {
      const logs = await makeLogs();
      expect(logs.length).toBeGreaterThanOrEqual(2);
      logs.forEach((log, i) => log.record(`key_${i}`, new Date(1_000 + i)));
      // Each process hands its records over when it takes (and periodically).
      for (const log of logs.slice(1)) await log.take(1);
      const taken = await logs[0]!.take(100);
      expect(new Set(taken.entries.map((e) => e.keyId))).toEqual(new Set(logs.map((_, i) => `key_${i}`)));
    });
  });
}
