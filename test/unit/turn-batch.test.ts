// TurnBatch: the requests of one event-loop turn are flushed together, at most maxBatch at a time, in arrival order.
import { describe, expect, it } from 'vitest';
import { TurnBatch, type Waiting } from '../../src/adapters/turn-batch.js';

function recording(maxBatch?: number) {
  const flushes: number[][] = [];
  const turn = new TurnBatch<number, string>((batch: Array<Waiting<number, string>>) => {
    flushes.push(batch.map((item) => item.input));
    for (const item of batch) {
      if (item.input < 0) item.reject(new Error(`refused ${item.input}`));
      else item.resolve(`done ${item.input}`);
    }
  }, maxBatch);
  return { turn, flushes };
}

describe('TurnBatch', () => {
  it('flushes the requests of one turn as one batch, and each request gets its own answer', async () => {
    const { turn, flushes } = recording();
    const answers = await Promise.allSettled([1, 2, -3, 4].map((n) => turn.add(n)));
    expect(flushes).toEqual([[1, 2, -3, 4]]);
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).toEqual([
      'done 1',
      'done 2',
      'refused -3',
      'done 4',
    ]);
  });

  it('sends at most maxBatch per flush, the rest in the following turns, in arrival order', async () => {
    const { turn, flushes } = recording(2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => turn.add(n)));
    expect(flushes).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('starts a new batch for requests made after the flush', async () => {
    const { turn, flushes } = recording();
    await turn.add(1);
    await Promise.all([turn.add(2), turn.add(3)]);
    expect(flushes).toEqual([[1], [2, 3]]);
  });
});
