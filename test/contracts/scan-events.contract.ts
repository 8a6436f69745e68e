// Contract suite for the ScanEventSource port: the scans the recorder counted, handed out once each, per account and code.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ScanRecorder } from '../../src/domain/ports/scan-ledger.js';
import type { ScanEventSource } from '../../src/domain/ports/scan-webhooks.js';

export function scanEventSourceContract(adapterName: string, make: () => Promise<{ recorder: ScanRecorder; events: ScanEventSource }>): void {
  describe(`ScanEventSource contract: ${adapterName}`, () => {
    it('hands out every recorded scan exactly once, per account and code, with the device split', async () => {
      const { recorder, events } = await make();
      const [a, b] = [`acc_${randomUUID()}`, `acc_${randomUUID()}`];
      const at = new Date();
      for (let i = 0; i < 25; i++)
        recorder.record({ codeId: 'dyn_a1', accountId: a, at, visitor: `v${i}`, device: i % 5 === 0 ? 'android' : 'ios', language: 'en' });
      recorder.record({ codeId: 'dyn_a2', accountId: a, at, visitor: 'v', device: 'desktop', language: 'en' });
      recorder.record({ codeId: 'dyn_b1', accountId: b, at: new Date(at.getTime() - 86_400_000), visitor: 'v', device: 'other', language: 'en' });
      await recorder.flush();
      const taken = (await events.take(100)).filter((x) => x.accountId === a || x.accountId === b);
      const byAccount = Object.fromEntries(taken.map((x) => [x.accountId, [...x.codes].sort((p, q) => p.codeId.localeCompare(q.codeId))]));
      expect(byAccount[a]).toEqual([
        { codeId: 'dyn_a1', scans: 25, devices: { ios: 20, android: 5 } },
        { codeId: 'dyn_a2', scans: 1, devices: { desktop: 1 } },
      ]);
      expect(byAccount[b]).toEqual([{ codeId: 'dyn_b1', scans: 1, devices: { other: 1 } }]);
      expect((await events.take(100)).filter((x) => x.accountId === a || x.accountId === b)).toEqual([]);
      recorder.record({ codeId: 'dyn_a1', accountId: a, at, visitor: 'v', device: 'ios', language: 'en' });
      await recorder.flush();
      expect((await events.take(100)).filter((x) => x.accountId === a)).toEqual([
        { accountId: a, codes: [{ codeId: 'dyn_a1', scans: 1, devices: { ios: 1 } }] },
      ]);
    });
  });
}
