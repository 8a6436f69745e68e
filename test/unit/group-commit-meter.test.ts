// Group commit: one transaction per event-loop batch, the same arithmetic as one-by-one, and nothing acknowledged
// unless stored.
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { GroupCommitMeter } from '../../src/adapters/sqlite/group-commit-meter.js';
import { SqliteUsageMeter } from '../../src/adapters/sqlite/usage-meter.sqlite.js';
import type { ReserveInput, ReserveOutcome } from '../../src/domain/ports/usage-meter.js';

let db: SqliteDatabase;
afterEach(() => db?.close());

const at = new Date('2026-11-15T12:00:00Z');
/** Without a burst limit (the port's optional `burst`): these cases are about the monthly limits and storage. */
function input(i: number, limits = { requests: 1_000, qrs: 1_000 }): ReserveInput {
  return {
    accountId: 'acc_1',
    period: '2026-11',
    qr: { fingerprint: `fp-${i}`, type: 'text', payload: `payload ${i} `.repeat(20) },
    limits,
    at,
  };
}

describe('GroupCommitMeter', () => {
  it('runs concurrent reservations in one transaction and keeps the limits exact', async () => {
    db = openDatabase(':memory:');
    let transactions = 0;
    const exec = db.exec.bind(db);
    db.exec = ((sql: string) => {
      if (sql === 'BEGIN IMMEDIATE') transactions++;
      return exec(sql);
    }) as typeof db.exec;
    const meter = new GroupCommitMeter(db, new SqliteUsageMeter(db));
    const inputs = Array.from({ length: 60 }, (_, i) => input(i % 12, { requests: 40, qrs: 9 }));
    const outcomes = await Promise.all(inputs.map((one) => meter.reserve(one)));
    expect(transactions).toBe(1);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(40);
    expect(await meter.usage('acc_1', '2026-11')).toEqual({ requests: 40, qrs: 9 });

    // The same reservations one by one, each awaited, on a meter without group commit: the same outcome for each.
    const alone = openDatabase(':memory:');
    try {
      const plain = new SqliteUsageMeter(alone);
      const oneByOne = [];
      for (const one of inputs) oneByOne.push(await plain.reserve(one));
      const verdict = (o: ReserveOutcome) => (o.ok ? 'ok' : o.reason);
      expect(outcomes.map(verdict)).toEqual(oneByOne.map(verdict));
      expect(outcomes.map((o) => o.usage)).toEqual(oneByOne.map((o) => o.usage));
    } finally {
      alone.close();
    }
  });

  it('acknowledges only what was stored when the disk fills up mid-batch', async () => {
    db = openDatabase(':memory:');
    const meter = new GroupCommitMeter(db, new SqliteUsageMeter(db));
    await meter.reserve(input(0));
    // The database may not grow by a single page more: the first insert that needs a page fails with SQLITE_FULL.
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    const settled = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => meter.reserve(input(i + 1))));
    const acknowledged = settled.filter((s) => s.status === 'fulfilled' && s.value.ok).length;
    expect(settled.some((s) => s.status === 'rejected')).toBe(true);
    expect((await meter.usage('acc_1', '2026-11')).requests).toBe(acknowledged + 1);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
