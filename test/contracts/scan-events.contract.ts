// Contract suite for the ScanEventSource port: the scans the recorder counted, fanned out once to each endpoint, sealed
// into messages kept until settled.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ScanRecorder } from '../../src/domain/ports/scan-ledger.js';
import type { ScanEventSource } from '../../src/domain/ports/scan-webhooks.js';
import type { Scan } from '../../src/domain/scan.js';

/** A scan in English with no place; a human's unless `bot` says otherwise. */
const scanOf = (scan: Pick<Scan, 'codeId' | 'accountId' | 'at' | 'visitor' | 'device'> & { bot?: boolean }): Scan => ({
  language: 'en',
  place: null,
  bot: false,
  ...scan,
});

export function scanEventSourceContract(
  adapterName: string,
  make: () => Promise<{ recorder: ScanRecorder; events: ScanEventSource }>,
): void {
  describe(`ScanEventSource contract: ${adapterName}`, () => {
    it(
      'fans every recorded scan out once to each endpoint named, per code with the device split; an account with ' +
        'none named drops them',
      async () => {
        const { recorder, events } = await make();
        const [a, b] = [`acc_${randomUUID()}`, `acc_${randomUUID()}`];
        const [e1, e2] = [`whk_${randomUUID()}`, `whk_${randomUUID()}`];
        const at = new Date(Date.UTC(2026, 10, 24, 12));
        for (let i = 0; i < 25; i++)
          recorder.record(
            scanOf({ codeId: 'dyn_a1', accountId: a, at, visitor: `v${i}`, device: i % 5 === 0 ? 'android' : 'ios' }),
          );
        recorder.record(scanOf({ codeId: 'dyn_a2', accountId: a, at, visitor: 'v', device: 'desktop' }));
        recorder.record(scanOf({ codeId: 'dyn_b1', accountId: b, at, visitor: 'v', device: 'other' }));
        // Crawlers and link previews are never scan events: not on a counted code, and an account with only those waits
        // for nothing.
        recorder.record(scanOf({ codeId: 'dyn_a1', accountId: a, at, visitor: 'bot', device: 'other', bot: true }));
        const botsOnly = `acc_${randomUUID()}`;
        recorder.record(
          scanOf({ codeId: 'dyn_c1', accountId: botsOnly, at, visitor: 'bot', device: 'other', bot: true }),
        );
        await recorder.flush();
        expect(await events.waitingAccounts(100)).not.toContain(botsOnly);
        expect((await events.waitingAccounts(100)).filter((x) => x === a || x === b).sort()).toEqual([a, b].sort());

        await events.fanOut(a, [e1, e2], at);
        await events.fanOut(b, [], at);
        expect((await events.waitingAccounts(100)).filter((x) => x === a || x === b)).toEqual([]);
        const mine = (await events.busyEndpoints()).filter((x) => x.endpointId === e1 || x.endpointId === e2);
        expect(mine.sort((p, q) => p.endpointId.localeCompare(q.endpointId))).toEqual(
          [
            { endpointId: e1, accountId: a },
            { endpointId: e2, accountId: a },
          ].sort((p, q) => p.endpointId.localeCompare(q.endpointId)),
        );
        const expected = [
          { codeId: 'dyn_a1', scans: 25, devices: { ios: 20, android: 5 } },
          { codeId: 'dyn_a2', scans: 1, devices: { desktop: 1 } },
        ];
        for (const endpoint of [e1, e2])
          expect((await events.seal(a, endpoint, `msg_${endpoint}`, at))?.codes).toEqual(expected);
      },
    );

    it(
      'keeps the sealed message (same id, same scans) until it is settled; scans fanned out meanwhile wait for ' +
        'the next message',
      async () => {
        const { recorder, events } = await make();
        const account = `acc_${randomUUID()}`;
        const endpoint = `whk_${randomUUID()}`;
        const t0 = new Date(Date.UTC(2026, 10, 24, 12));
        const at = (s: number) => new Date(t0.getTime() + s * 1000);
        const scans = async (n: number, device: 'ios' | 'android') => {
          for (let i = 0; i < n; i++)
            recorder.record(scanOf({ codeId: 'dyn_x', accountId: account, at: t0, visitor: `v${i}`, device }));
          await recorder.flush();
          await events.fanOut(account, [endpoint], at(0));
        };
        await scans(3, 'ios');
        const first = await events.seal(account, endpoint, 'msg_1', at(1));
        expect(first).toEqual({
          id: 'msg_1',
          from: at(0),
          to: at(1),
          codes: [{ codeId: 'dyn_x', scans: 3, devices: { ios: 3 } }],
          attempts: 0,
          nextAt: at(1),
        });
        await scans(4, 'android');
        expect(await events.seal(account, endpoint, 'msg_2', at(2))).toEqual(first);
        await events.settle(account, endpoint, 'msg_1', at(60));
        expect(await events.seal(account, endpoint, 'msg_2', at(3))).toEqual({ ...first, attempts: 1, nextAt: at(60) });
        // A stale id changes nothing.
        await events.settle(account, endpoint, 'msg_0', undefined);
        expect((await events.seal(account, endpoint, 'msg_2', at(4)))?.id).toBe('msg_1');

        await events.settle(account, endpoint, 'msg_1', undefined);
        expect(await events.seal(account, endpoint, 'msg_2', at(61))).toEqual({
          id: 'msg_2',
          from: at(1),
          to: at(61),
          codes: [{ codeId: 'dyn_x', scans: 4, devices: { android: 4 } }],
          attempts: 0,
          nextAt: at(61),
        });
        await events.settle(account, endpoint, 'msg_2', undefined);
        // Nothing sent and nothing waiting: idle, and no longer busy.
        expect(await events.seal(account, endpoint, 'msg_3', at(62))).toBeUndefined();
        expect((await events.busyEndpoints()).filter((x) => x.endpointId === endpoint)).toEqual([]);
      },
    );

    it('forgets a dropped endpoint: its waiting scans and its message', async () => {
      const { recorder, events } = await make();
      const account = `acc_${randomUUID()}`;
      const endpoint = `whk_${randomUUID()}`;
      recorder.record(scanOf({ codeId: 'dyn_y', accountId: account, at: new Date(), visitor: 'v', device: 'ios' }));
      await recorder.flush();
      await events.fanOut(account, [endpoint], new Date());
      expect(await events.seal(account, endpoint, 'msg_1', new Date())).toBeDefined();
      await events.drop(account, endpoint);
      expect((await events.busyEndpoints()).filter((x) => x.endpointId === endpoint)).toEqual([]);
      expect(await events.seal(account, endpoint, 'msg_2', new Date())).toBeUndefined();
    });
  });
}
