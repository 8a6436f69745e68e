// Moves what the untagged key layout of earlier releases holds into today's layout, on the one Redis it ran on: no
// reset on upgrade.
import { Cluster } from 'ioredis';
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';
import { scanEventAccountsKey, scanEventsKey } from './scan-counter.redis.js';
import { accountTag, bucketTagOf } from './slot-tags.js';
import { countedKeys, UsageKeys } from './usage-keys.js';

// The scripts (src/adapters/redis/lua/): each file opens with its KEYS, ARGV and answer.
const MERGE_USAGE = readLua('legacy-merge-usage');
const MERGE_COUNTS = readLua('legacy-merge-counts');

export interface LegacyMigration {
  /** Account-months whose counters and QR lists were moved. */
  accountMonths: number;
  /** Accounts whose scans waiting for webhooks were moved. */
  scanEventAccounts: number;
  /** Webhook endpoints whose outbox was moved. */
  endpoints: number;
}

const PERIOD = /^\d{4}-\d{2}$/;

/** Every key matching `pattern` (SCAN, bounded), as names. */
async function scanKeys(client: RedisClient, pattern: string): Promise<string[]> {
  if (client instanceof Cluster) return [];
  const keys: string[] = [];
  let cursor = '0';
  for (let page = 0; page < 1_000_000; page++) {
    const [next, found] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
    if (cursor === '0') break;
  }
  return keys;
}

/** The members of a set, page by page. */
async function members(client: RedisClient, key: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  for (let page = 0; page < 1_000_000; page++) {
    const [next, some] = await client.sscan(key, cursor, 'COUNT', 1000);
    found.push(...some);
    cursor = next;
    if (cursor === '0') break;
  }
  return found;
}

/**
 * Moves the earlier layout's month counters and QR lists, scans waiting for webhooks and webhook outboxes into today's
 * layout. Safe to run while the new release serves (each account's move is one script) and to run again. Runs on one
 * Redis only: the earlier layout never ran on a cluster. Scan statistics are not moved (see docs/deployment.md).
 */
export async function migrateLegacyLayout(client: RedisClient, keyPrefix = 'qrm:'): Promise<LegacyMigration> {
  if (client instanceof Cluster)
    throw new Error('the earlier key layout only ran on one Redis: migrate there, before moving to a cluster');
  const keys = new UsageKeys(keyPrefix);
  const result: LegacyMigration = { accountMonths: 0, scanEventAccounts: 0, endpoints: 0 };

  const accountSets = (await scanKeys(client, `${keyPrefix}usage:*:accounts`)).filter((key) =>
    PERIOD.test(key.slice(`${keyPrefix}usage:`.length, -':accounts'.length)),
  );
  for (const accountsKey of accountSets) {
    const period = accountsKey.slice(`${keyPrefix}usage:`.length, -':accounts'.length);
    const old = (accountId: string, kind: string) => `${keyPrefix}usage:${period}:${accountId}:${kind}`;
    for (const accountId of await members(client, accountsKey)) {
      const k = keys.account(period, accountId);
      const moved = await client.eval(
        MERGE_USAGE,
        13,
        old(accountId, 'totals'),
        old(accountId, 'gens'),
        old(accountId, 'info'),
        old(accountId, 'recent'),
        old(accountId, 'changed'),
        ...countedKeys(k),
        keys.periods(),
        accountId,
        period,
      );
      result.accountMonths += Number(moved);
    }
    await client.del(accountsKey, `${keyPrefix}usage:${period}:changed`);
  }

  const eventAccounts = `${keyPrefix}scan-events:accounts`;
  for (const accountId of await members(client, eventAccounts)) {
    const bucket = scanEventAccountsKey(keyPrefix, bucketTagOf(accountId));
    await client.eval(
      MERGE_COUNTS,
      3,
      `${keyPrefix}scan-events:${accountId}`,
      scanEventsKey(keyPrefix, accountId),
      bucket,
      accountId,
    );
    result.scanEventAccounts++;
  }
  await client.del(eventAccounts);

  const outbox = `${keyPrefix}scan-webhooks:`;
  const busy = await client.hgetall(`${outbox}busy`);
  for (const [endpointId, accountId] of Object.entries(busy)) {
    const base = `${outbox}${accountTag(accountId)}:`;
    await client.eval(
      MERGE_COUNTS,
      3,
      `${outbox}waiting:${endpointId}`,
      `${base}waiting:${endpointId}`,
      `${outbox}{none}`,
      accountId,
    );
    for (const part of ['sealed:', 'message:', 'since:']) {
      // A message being delivered keeps its id and scans: moved only where the new layout has none yet.
      if ((await client.exists(`${outbox}${part}${endpointId}`)) === 1)
        await client.renamenx(`${outbox}${part}${endpointId}`, `${base}${part}${endpointId}`);
      await client.del(`${outbox}${part}${endpointId}`);
    }
    await client.hsetnx(`${outbox}${bucketTagOf(accountId)}:busy`, endpointId, accountId);
    result.endpoints++;
  }
  await client.del(`${outbox}busy`, `${outbox}{none}`);
  return result;
}
