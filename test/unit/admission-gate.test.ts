// The admission gate: bounded running and waiting work, FIFO, 503 overloaded past it, and one account held to its
// share.
import { describe, expect, it } from 'vitest';
import { AdmissionGate } from '../../src/adapters/render/admission-gate.js';
import type { RenderCaller } from '../../src/domain/ports/renderer.js';

const alice: RenderCaller = { accountId: 'alice', plan: 'free' };
const bob: RenderCaller = { accountId: 'bob', plan: 'free' };

/** A task that finishes when the test says so. */
function heldTask() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const started: string[] = [];
  return { finish, task: (name: string) => async () => (started.push(name), await done, name), started };
}

describe('AdmissionGate', () => {
  it(
    'runs work up to its capacity, queues the rest in order, and refuses past the queue with overloaded and ' +
      'Retry-After',
    async () => {
      const gate = new AdmissionGate({ running: 2, queued: 2, accountShare: () => 1 });
      const held = heldTask();
      const results = ['a', 'b', 'c', 'd'].map((name) => gate.run(alice, 1, held.task(name)));
      await Promise.resolve();
      expect(held.started).toEqual(['a', 'b']);
      expect(gate.stats()).toMatchObject({ running: 2, queued: 2 });
      await expect(gate.run(alice, 1, () => 'e')).rejects.toMatchObject({ code: 'overloaded', retryAfterSeconds: 1 });
      held.finish();
      expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
      expect(held.started).toEqual(['a', 'b', 'c', 'd']);
      expect(gate.stats()).toEqual({ running: 0, queued: 0, accounts: 0 });
    },
  );

  it('weighs work by cost: a large render takes the room of many small ones', async () => {
    const gate = new AdmissionGate({ running: 16, queued: 0, accountShare: () => 1 });
    const held = heldTask();
    const big = gate.run(alice, 16, held.task('big'));
    await expect(gate.run(bob, 1, () => 'small')).rejects.toMatchObject({ code: 'overloaded' });
    held.finish();
    await big;
    expect(await gate.run(bob, 1, () => 'small')).toBe('small');
  });

  it("refuses an account past its share while another account's renders still get in", async () => {
    const gate = new AdmissionGate({ running: 4, queued: 12, accountShare: () => 0.25 });
    const held = heldTask();
    const flood = Array.from({ length: 4 }, (_, i) => gate.run(alice, 1, held.task(`alice ${i}`)));
    await expect(gate.run(alice, 1, () => 'one more')).rejects.toMatchObject({
      code: 'overloaded',
      retryAfterSeconds: 1,
    });
    const bystander = gate.run(bob, 1, held.task('bob'));
    held.finish();
    expect(await bystander).toBe('bob');
    await Promise.all(flood);
  });

  it('gives the slot back when a task fails', async () => {
    const gate = new AdmissionGate({ running: 1, queued: 0, accountShare: () => 1 });
    await expect(gate.run(alice, 1, () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(gate.stats()).toEqual({ running: 0, queued: 0, accounts: 0 });
    expect(await gate.run(alice, 1, () => 'ok')).toBe('ok');
  });

  it(
    "keeps the rest of the running capacity for others: one account's big renders past its running share wait, " +
      'and hold nobody up',
    async () => {
      const gate = new AdmissionGate({
        running: 32,
        queued: 1024,
        accountShare: () => 1,
        accountRunningShare: () => 0.5,
      });
      const held = heldTask();
      const first = gate.run(alice, 16, held.task('alice 2048 px'));
      const second = gate.run(alice, 16, held.task('alice 2048 px again'));
      // Room for it, but alice already runs her half: it waits.
      expect(held.started).toEqual(['alice 2048 px']);
      expect(gate.stats()).toMatchObject({ running: 16, queued: 16 });
      // bob's small renders are not behind alice's waiting one: they start at once, in the half she cannot take.
      const small = Array.from({ length: 16 }, (_, i) => gate.run(bob, 1, held.task(`bob ${i}`)));
      expect(held.started).toHaveLength(17);
      expect(gate.stats()).toMatchObject({ running: 32, queued: 16 });
      held.finish();
      await Promise.all([first, second, ...small]);
      expect(held.started.at(-1)).toBe('alice 2048 px again');
      expect(gate.stats()).toEqual({ running: 0, queued: 0, accounts: 0 });
    },
  );

  it('still lets an account alone render one image bigger than its running share', async () => {
    const gate = new AdmissionGate({ running: 16, queued: 64, accountShare: () => 1, accountRunningShare: () => 0.5 });
    expect(await gate.run(alice, 16, () => 'big')).toBe('big');
  });
});
