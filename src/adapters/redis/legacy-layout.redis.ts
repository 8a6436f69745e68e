// Moves what the untagged key layout of earlier releases holds into today's layout, on the one Redis it ran on: no reset on upgrade.
import { Cluster } from 'ioredis';
import type { RedisClient } from './connection.js';
import { scanEventAccountsKey, scanEventsKey } from './scan-counter.redis.js';
import { accountTag, bucketTagOf } from './slot-tags.js';
import { UsageKeys } from './usage-keys.js';

/**
 * KEYS old totals, gens, info, recent, changed; new totals, gens, info, recent, changed, accounts, changed (buckets), periods
 * ARGV accountId, period
 * Adds the old counts to the new ones (a new instance may have counted already), keeps the earlier first-seen record and
 * the later last-used time, marks every code changed for the rollup, carries the expiry over, then deletes the old keys.
 */
const MERGE_USAGE = `
if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[3], KEYS[4], KEYS[5])
  return 0
end
local expireAt = redis.call('PEXPIRETIME', KEYS[1])
local totals = redis.call('HGETALL', KEYS[1])
for i = 1, #totals, 2 do redis.call('HINCRBY', KEYS[6], totals[i], totals[i + 1]) end
local version = redis.call('HINCRBY', KEYS[6], 'version', 1)
local gens = redis.call('HGETALL', KEYS[2])
for i = 1, #gens, 2 do
  redis.call('HINCRBY', KEYS[7], gens[i], gens[i + 1])
  redis.call('ZADD', KEYS[10], version, gens[i])
end
local info = redis.call('HGETALL', KEYS[3])
for i = 1, #info, 2 do redis.call('HSET', KEYS[8], info[i], info[i + 1]) end
local recent = redis.call('ZRANGE', KEYS[4], 0, -1, 'WITHSCORES')
for i = 1, #recent, 2 do redis.call('ZADD', KEYS[9], 'GT', recent[i + 1], recent[i]) end
local changed = redis.call('ZRANGE', KEYS[5], 0, -1)
for i = 1, #changed do redis.call('ZADD', KEYS[10], version, changed[i]) end
redis.call('SADD', KEYS[11], ARGV[1])
redis.call('SADD', KEYS[12], ARGV[1])
redis.call('SADD', KEYS[13], ARGV[2])
if expireAt > 0 then
  for i = 6, 12 do
    local current = redis.call('PEXPIRETIME', KEYS[i])
    if current == -1 or current < expireAt then redis.call('PEXPIREAT', KEYS[i], expireAt) end
  end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1
`;

/** KEYS old hash, new hash, new bucket set; ARGV accountId. Adds one account's waiting scan events to today's keys. */
const MERGE_COUNTS = `
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do redis.call('HINCRBY', KEYS[2], fields[i], fields[i + 1]) end
if #fields > 0 then redis.call('SADD', KEYS[3], ARGV[1]) end
redis.call('DEL', KEYS[1])
return #fields / 2
`;

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
  if (client instanceof Cluster) throw new Error('the earlier key layout only ran on one Redis: migrate there, before moving to a cluster');
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
        k.totals,
        k.generations,
        k.info,
        k.recent,
        k.changedQrs,
        k.accounts,
        k.changed,
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
    await client.eval(MERGE_COUNTS, 3, `${keyPrefix}scan-events:${accountId}`, scanEventsKey(keyPrefix, accountId), bucket, accountId);
    result.scanEventAccounts++;
  }
  await client.del(eventAccounts);

  const outbox = `${keyPrefix}scan-webhooks:`;
  const busy = await client.hgetall(`${outbox}busy`);
  for (const [endpointId, accountId] of Object.entries(busy)) {
    const base = `${outbox}${accountTag(accountId)}:`;
    await client.eval(MERGE_COUNTS, 3, `${outbox}waiting:${endpointId}`, `${base}waiting:${endpointId}`, `${outbox}{none}`, accountId);
    for (const part of ['sealed:', 'message:', 'since:']) {
      // A message being delivered keeps its id and scans: moved only where the new layout has none yet.
      if ((await client.exists(`${outbox}${part}${endpointId}`)) === 1) await client.renamenx(`${outbox}${part}${endpointId}`, `${base}${part}${endpointId}`);
      await client.del(`${outbox}${part}${endpointId}`);
    }
    await client.hsetnx(`${outbox}${bucketTagOf(accountId)}:busy`, endpointId, accountId);
    result.endpoints++;
  }
  await client.del(`${outbox}busy`, `${outbox}{none}`);
  return result;
}
