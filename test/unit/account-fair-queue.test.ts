// The decoder's fair queue: accounts take turns, one account never holds every thread, shares refused with Retry-After.
import { describe, expect, it } from 'vitest';
import { AccountFairQueue, type FairQueueLimits } from '../../src/adapters/decode/account-fair-queue.js';

/** Tasks that each finish when the test says so, and the order in which they started. */
function heldTasks() {
  const finishers = new Map<string, () => void>();
  const started: string[] = [];
  const task = (name: string) => () => {
    started.push(name);
    return new Promise<string>((resolve) => finishers.set(name, () => resolve(name)));
  };
  const finish = async (name: string) => {
    finishers.get(name)!();
    // Let the queue hand the freed thread on before the test looks.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { task, finish, started };
}

const limits = (overrides: Partial<FairQueueLimits> = {}): FairQueueLimits => ({
  running: 1,
  runningPerAccount: 1,
  heldPerAccount: 8,
  waiting: 16,
  retryAfterSeconds: 3,
  ...overrides,
});

describe('AccountFairQueue', () => {
  it("serves another account's task before the flood's queued ones: accounts take turns for the thread", async () => {
    const queue = new AccountFairQueue(limits());
    const held = heldTasks();
    const flood = ['a1', 'a2', 'a3', 'a4'].map((name) => queue.run('alice', held.task(name)));
    const bystander = queue.run('bob', held.task('b1'));
    const second = queue.run('carol', held.task('c1'));
    expect(queue.stats()).toEqual({ running: 1, waiting: 5, accounts: 3 });
    for (const name of ['a1', 'b1', 'c1', 'a2', 'a3', 'a4']) await held.finish(name);
    expect(held.started).toEqual(['a1', 'b1', 'c1', 'a2', 'a3', 'a4']);
    expect(await bystander).toBe('b1');
    expect(await second).toBe('c1');
    expect(await Promise.all(flood)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(queue.stats()).toEqual({ running: 0, waiting: 0, accounts: 0 });
  });

  it("keeps a thread out of one account's reach, so another account's task starts at once", async () => {
    const queue = new AccountFairQueue(limits({ running: 2, runningPerAccount: 1 }));
    const held = heldTasks();
    const flood = ['a1', 'a2', 'a3'].map((name) => queue.run('alice', held.task(name)));
    expect(held.started).toEqual(['a1']);
    const bystander = queue.run('bob', held.task('b1'));
    expect(held.started).toEqual(['a1', 'b1']);
    await held.finish('b1');
    expect(await bystander).toBe('b1');
    // The free thread stays free for others while alice runs her one.
    expect(held.started).toEqual(['a1', 'b1']);
    for (const name of ['a1', 'a2', 'a3']) await held.finish(name);
    expect(await Promise.all(flood)).toEqual(['a1', 'a2', 'a3']);
  });

  it(
    'refuses an account past its share with 429 too_many_decodes, and every account past the queue with 503 ' +
      'overloaded',
    async () => {
      const queue = new AccountFairQueue(limits({ heldPerAccount: 2, waiting: 2 }));
      const held = heldTasks();
      const alice = ['a1', 'a2'].map((name) => queue.run('alice', held.task(name)));
      await expect(queue.run('alice', held.task('a3'))).rejects.toMatchObject({
        code: 'too_many_decodes',
        status: 429,
        retryAfterSeconds: 3,
      });
      const bob = queue.run('bob', held.task('b1'));
      await expect(queue.run('carol', held.task('c1'))).rejects.toMatchObject({
        code: 'overloaded',
        status: 503,
        retryAfterSeconds: 3,
      });
      for (const name of ['a1', 'b1', 'a2']) await held.finish(name);
      await Promise.all([...alice, bob]);
      expect(held.started).toEqual(['a1', 'b1', 'a2']);
    },
  );

  it('gives the thread back when a task fails', async () => {
    const queue = new AccountFairQueue(limits());
    await expect(queue.run('alice', () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(queue.stats()).toEqual({ running: 0, waiting: 0, accounts: 0 });
    expect(await queue.run('alice', async () => 'ok')).toBe('ok');
  });
});
