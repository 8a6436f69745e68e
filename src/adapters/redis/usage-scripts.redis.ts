// The Lua scripts of Redis metering: each is one atomic round trip (check-and-count, refund, reads, rollup snapshot, acknowledge).
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection.js';

interface LuaScript {
  name: string;
  numberOfKeys: number;
  lua: string;
}

/**
 * Lua shared by the reservations: the month's request and QR counts, then the burst window (a sorted set of admitted
 * tokens scored by time, KEYS[key]) slid to ARGV[at] and read into `burstUsed`, refused when full. Numbers are indexes.
 */
function countsAndBurstCheck(b: { key: number; at: number; limit: number; windowMs: number }): string {
  return `
local requests = tonumber(redis.call('HGET', KEYS[1], 'requests') or '0')
local qrs = redis.call('HLEN', KEYS[2])
local burstLimit = tonumber(ARGV[${b.limit}])
local burstUsed = 0
if burstLimit then
  redis.call('ZREMRANGEBYSCORE', KEYS[${b.key}], '-inf', tonumber(ARGV[${b.at}]) - tonumber(ARGV[${b.windowMs}]))
  burstUsed = redis.call('ZCARD', KEYS[${b.key}])
  if burstUsed >= burstLimit then return {0, 'rate_limited', requests, qrs, burstUsed} end
end`;
}

/** Lua: takes the admitted reservation's slot (token ARGV[token]) in the burst window checked above. */
function burstTake(b: { key: number; at: number; windowMs: number; token: number }): string {
  return `
if burstLimit then
  burstUsed = burstUsed + 1
  redis.call('ZADD', KEYS[${b.key}], ARGV[${b.at}], ARGV[${b.token}])
  -- Redis expires by its own clock: twice the window leaves room for instances whose clocks differ a little.
  redis.call('PEXPIRE', KEYS[${b.key}], 2 * tonumber(ARGV[${b.windowMs}]))
end`;
}

/**
 * KEYS totals, generations, info, recent, changedQrs, accounts, changed, reservation, burst (one slot: the account's)
 * ARGV accountId, period, fingerprint, type, payload, atMs, requestLimit, qrLimit, expireAt (s), reservationTtl (s),
 *      burstLimit, burstWindowMs, token — a limit of 'none' is unlimited: its check is skipped (and the burst key untouched)
 * Checks the burst, then both monthly limits, and counts in one step; a refused request counts nothing.
 * The burst key is a sorted set of the admitted reservations' tokens scored by their time: a sliding window.
 * Returns {1|0, reason, requests, qrs, burstUsed}.
 */
const RESERVE: LuaScript = {
  name: 'qrmUsageReserve',
  numberOfKeys: 9,
  lua: `${countsAndBurstCheck({ key: 9, at: 6, limit: 11, windowMs: 12 })}
local requestLimit = tonumber(ARGV[7])
if requestLimit and requests >= requestLimit then return {0, 'quota_exceeded', requests, qrs, burstUsed} end
local known = redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1
local qrLimit = tonumber(ARGV[8])
if not known and qrLimit and qrs >= qrLimit then return {0, 'qr_quota_exceeded', requests, qrs, burstUsed} end
requests = redis.call('HINCRBY', KEYS[1], 'requests', 1)
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
if not known then
  qrs = qrs + 1
  redis.call('HSET', KEYS[3], ARGV[3], cjson.encode({ARGV[4], ARGV[5], ARGV[6]}))
end
redis.call('ZADD', KEYS[4], 'GT', ARGV[6], ARGV[3])
redis.call('ZADD', KEYS[5], version, ARGV[3])
redis.call('SADD', KEYS[6], ARGV[1])
redis.call('SADD', KEYS[7], ARGV[1])
for i = 1, 7 do redis.call('EXPIREAT', KEYS[i], ARGV[9]) end
redis.call('SET', KEYS[8], ARGV[3], 'EX', ARGV[10])${burstTake({ key: 9, at: 6, windowMs: 12, token: 13 })}
return {1, '', requests, qrs, burstUsed}
`,
};

/**
 * KEYS burst
 * ARGV atMs, burstLimit, burstWindowMs, token
 * One slot of the burst window alone (the same sorted set RESERVE fills). Returns {1|0, burstUsed}.
 */
const ADMIT_BURST: LuaScript = {
  name: 'qrmUsageAdmitBurst',
  numberOfKeys: 1,
  lua: `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[3]))
local used = redis.call('ZCARD', KEYS[1])
if used >= tonumber(ARGV[2]) then return {0, used} end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[3]))
return {1, used + 1}
`,
};

/**
 * KEYS totals, generations, accounts, changed, reservation, burst
 * ARGV accountId, period, atMs, requestLimit, expireAt (s), reservationTtl (s), burstLimit, burstWindowMs, token
 * One request and no code (a decode): the burst, then the monthly requests, checked and counted in one step, as RESERVE
 * does for those two (generations is only read, for the QR count answered). The marker holds 'request' so that only
 * REFUND_REQUEST can take it back. Returns {1|0, reason, requests, qrs, burstUsed}.
 */
const RESERVE_REQUEST: LuaScript = {
  name: 'qrmUsageReserveRequest',
  numberOfKeys: 6,
  lua: `${countsAndBurstCheck({ key: 6, at: 3, limit: 7, windowMs: 8 })}
local requestLimit = tonumber(ARGV[4])
if requestLimit and requests >= requestLimit then return {0, 'quota_exceeded', requests, qrs, burstUsed} end
requests = redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('EXPIREAT', KEYS[1], ARGV[5])
for i = 3, 4 do redis.call('EXPIREAT', KEYS[i], ARGV[5]) end
redis.call('SET', KEYS[5], 'request', 'EX', ARGV[6])${burstTake({ key: 6, at: 3, windowMs: 8, token: 9 })}
return {1, '', requests, qrs, burstUsed}
`,
};

/**
 * KEYS totals, changed, reservation
 * ARGV accountId, period, expireAt (s)
 * Undoes one RESERVE_REQUEST, once: only while its marker exists. Returns 1 when undone, 0 when there was nothing to undo.
 */
const REFUND_REQUEST: LuaScript = {
  name: 'qrmUsageRefundRequest',
  numberOfKeys: 3,
  lua: `
if redis.call('GETDEL', KEYS[3]) ~= 'request' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'requests') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'requests', -1) end
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('SADD', KEYS[2], ARGV[1])
for i = 1, 2 do redis.call('EXPIREAT', KEYS[i], ARGV[3], 'NX') end
return 1
`,
};

/**
 * KEYS totals, generations, info, recent, changedQrs, changed, reservation
 * ARGV accountId, period, fingerprint, expireAt (s)
 * Undoes one reservation, once: only while its marker exists. Returns 1 when undone, 0 when there was nothing to undo.
 */
const REFUND: LuaScript = {
  name: 'qrmUsageRefund',
  numberOfKeys: 7,
  lua: `
if redis.call('GETDEL', KEYS[7]) ~= ARGV[3] then return 0 end
if redis.call('HINCRBY', KEYS[2], ARGV[3], -1) <= 0 then
  redis.call('HDEL', KEYS[2], ARGV[3])
  redis.call('HDEL', KEYS[3], ARGV[3])
  redis.call('ZREM', KEYS[4], ARGV[3])
end
if tonumber(redis.call('HGET', KEYS[1], 'requests') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'requests', -1) end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('ZADD', KEYS[5], version, ARGV[3])
redis.call('SADD', KEYS[6], ARGV[1])
for i = 1, 6 do redis.call('EXPIREAT', KEYS[i], ARGV[4], 'NX') end
return 1
`,
};

/** KEYS totals, generations. Returns {requests, qrs}, or nil when Redis holds nothing for the account and period. */
const USAGE: LuaScript = {
  name: 'qrmUsageRead',
  numberOfKeys: 2,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return {tonumber(redis.call('HGET', KEYS[1], 'requests') or '0'), redis.call('HLEN', KEYS[2])}
`,
};

/**
 * KEYS totals, generations, info, recent; ARGV limit (> 0).
 * Returns flat [fingerprint, lastAt, generations, info JSON]..., most recent first, or nil as USAGE.
 */
const QRS: LuaScript = {
  name: 'qrmUsageQrs',
  numberOfKeys: 4,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local recent = redis.call('ZREVRANGE', KEYS[4], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #recent, 2 do
  out[#out + 1] = recent[i]
  out[#out + 1] = recent[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], recent[i]) or '0'
  out[#out + 1] = redis.call('HGET', KEYS[3], recent[i]) or ''
end
return out
`,
};

/**
 * KEYS totals, generations, info, recent, changedQrs; ARGV max codes.
 * One consistent snapshot: {requests, version, qrs, [fingerprint, changeVersion, generations, info JSON, lastAt]...},
 * or nil when the counters are gone (expired): then there is nothing to write.
 */
const SNAPSHOT: LuaScript = {
  name: 'qrmUsageSnapshot',
  numberOfKeys: 5,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local totals = redis.call('HMGET', KEYS[1], 'requests', 'version')
local changed = redis.call('ZRANGE', KEYS[5], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local codes = {}
for i = 1, #changed, 2 do
  local fp = changed[i]
  codes[#codes + 1] = fp
  codes[#codes + 1] = changed[i + 1]
  codes[#codes + 1] = redis.call('HGET', KEYS[2], fp) or '0'
  codes[#codes + 1] = redis.call('HGET', KEYS[3], fp) or ''
  codes[#codes + 1] = redis.call('ZSCORE', KEYS[4], fp) or '0'
end
return {totals[1] or '0', totals[2] or '0', redis.call('HLEN', KEYS[2]), codes}
`,
};

/**
 * KEYS totals, changedQrs, changed; ARGV accountId, version, [fingerprint, changeVersion]...
 * Forgets only the changes the snapshot saw; the account stays marked if anything changed since.
 */
const ACKNOWLEDGE: LuaScript = {
  name: 'qrmUsageAcknowledge',
  numberOfKeys: 3,
  lua: `
for i = 3, #ARGV, 2 do
  local seen = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if seen and tonumber(seen) <= tonumber(ARGV[i + 1]) then redis.call('ZREM', KEYS[2], ARGV[i]) end
end
local version = redis.call('HGET', KEYS[1], 'version') or '0'
if version == ARGV[2] and redis.call('ZCARD', KEYS[2]) == 0 then
  redis.call('SREM', KEYS[3], ARGV[1])
  return 1
end
return 0
`,
};

/**
 * KEYS totals, generations, info, recent, changedQrs, accounts, changed
 * ARGV accountId, period, atMs, requestLimit, qrLimit, expireAt (s), requests, then [fingerprint, count, type, payload]...
 * A whole batch: both limits checked for all of it, then everything counted, in one step; a refusal counts nothing.
 * A limit of 'none' is unlimited: its check is skipped (the usage is still counted).
 * Returns {1|0, reason, requests, qrs, requestsNeeded, qrsNeeded}.
 */
const RESERVE_BATCH: LuaScript = {
  name: 'qrmUsageReserveBatch',
  numberOfKeys: 7,
  lua: `
local requests = tonumber(redis.call('HGET', KEYS[1], 'requests') or '0')
local qrs = redis.call('HLEN', KEYS[2])
local n = tonumber(ARGV[7])
local newQrs = 0
for i = 8, #ARGV, 4 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then newQrs = newQrs + 1 end
end
local requestLimit = tonumber(ARGV[4])
if requestLimit and requests + n > requestLimit then return {0, 'quota_exceeded', requests, qrs, n, newQrs} end
local qrLimit = tonumber(ARGV[5])
if qrLimit and qrs + newQrs > qrLimit then return {0, 'qr_quota_exceeded', requests, qrs, n, newQrs} end
redis.call('HINCRBY', KEYS[1], 'requests', n)
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
for i = 8, #ARGV, 4 do
  local count = tonumber(ARGV[i + 1])
  if redis.call('HINCRBY', KEYS[2], ARGV[i], count) == count then
    redis.call('HSET', KEYS[3], ARGV[i], cjson.encode({ARGV[i + 2], ARGV[i + 3], ARGV[3]}))
  end
  redis.call('ZADD', KEYS[4], 'GT', ARGV[3], ARGV[i])
  redis.call('ZADD', KEYS[5], version, ARGV[i])
end
redis.call('SADD', KEYS[6], ARGV[1])
redis.call('SADD', KEYS[7], ARGV[1])
for i = 1, 7 do redis.call('EXPIREAT', KEYS[i], ARGV[6]) end
return {1, '', requests + n, qrs + newQrs, n, newQrs}
`,
};

/**
 * KEYS totals, generations, info, recent, changedQrs, changed, refunded (SET of the batch's refunded indexes)
 * ARGV accountId, period, expireAt (s), then [index, fingerprint]...
 * Gives back each item once: an index already in the refunded set is skipped. Returns how many were refunded.
 */
const REFUND_BATCH_ITEMS: LuaScript = {
  name: 'qrmUsageRefundBatchItems',
  numberOfKeys: 7,
  lua: `
local refunded = 0
local version = nil
for i = 4, #ARGV, 2 do
  if redis.call('SADD', KEYS[7], ARGV[i]) == 1 then
    refunded = refunded + 1
    local fp = ARGV[i + 1]
    if redis.call('HINCRBY', KEYS[2], fp, -1) <= 0 then
      redis.call('HDEL', KEYS[2], fp)
      redis.call('HDEL', KEYS[3], fp)
      redis.call('ZREM', KEYS[4], fp)
    end
    if tonumber(redis.call('HGET', KEYS[1], 'requests') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'requests', -1) end
    version = version or redis.call('HINCRBY', KEYS[1], 'version', 1)
    redis.call('ZADD', KEYS[5], version, fp)
  end
end
redis.call('EXPIREAT', KEYS[7], ARGV[3])
if refunded > 0 then
  redis.call('SADD', KEYS[6], ARGV[1])
  for i = 1, 6 do redis.call('EXPIREAT', KEYS[i], ARGV[3], 'NX') end
end
return refunded
`,
};

const SCRIPTS = [RESERVE, ADMIT_BURST, RESERVE_REQUEST, REFUND_REQUEST, REFUND, USAGE, QRS, SNAPSHOT, ACKNOWLEDGE, RESERVE_BATCH, REFUND_BATCH_ITEMS] as const;

type Arg = string | number;

/** The scripts, loaded on a client (EVALSHA, falling back to EVAL after a restart) and callable on it or on its pipelines. */
export class UsageScripts {
  readonly #client: RedisClient;

  constructor(client: RedisClient) {
    this.#client = client;
    for (const script of SCRIPTS) client.defineCommand(script.name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }

  #call(target: RedisClient | ChainableCommander, script: LuaScript, keys: string[], args: Arg[]): unknown {
    if (keys.length !== script.numberOfKeys) throw new Error(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
    const method = (target as unknown as Record<string, (...a: Arg[]) => unknown>)[script.name]!;
    return method.call(target, ...keys, ...args);
  }

  reserve(keys: string[], args: Arg[]): Promise<[number, string, number, number, number]> {
    return this.#call(this.#client, RESERVE, keys, args) as Promise<[number, string, number, number, number]>;
  }

  admitBurst(keys: string[], args: Arg[]): Promise<[number, number]> {
    return this.#call(this.#client, ADMIT_BURST, keys, args) as Promise<[number, number]>;
  }

  reserveRequest(keys: string[], args: Arg[]): Promise<[number, string, number, number, number]> {
    return this.#call(this.#client, RESERVE_REQUEST, keys, args) as Promise<[number, string, number, number, number]>;
  }

  refundRequest(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, REFUND_REQUEST, keys, args) as Promise<number>;
  }

  refund(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, REFUND, keys, args) as Promise<number>;
  }

  reserveBatch(keys: string[], args: Arg[]): Promise<[number, string, number, number, number, number]> {
    return this.#call(this.#client, RESERVE_BATCH, keys, args) as Promise<[number, string, number, number, number, number]>;
  }

  refundBatchItems(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, REFUND_BATCH_ITEMS, keys, args) as Promise<number>;
  }

  usage(keys: string[]): Promise<[number, number] | null> {
    return this.#call(this.#client, USAGE, keys, []) as Promise<[number, number] | null>;
  }

  qrs(keys: string[], limit: number): Promise<string[] | null> {
    return this.#call(this.#client, QRS, keys, [limit]) as Promise<string[] | null>;
  }

  /** One account's snapshot (its keys share a slot); many are sent together by the caller. */
  snapshotOf(keys: string[], maxQrs: number): Promise<unknown> {
    return this.#call(this.#client, SNAPSHOT, keys, [maxQrs]) as Promise<unknown>;
  }

  acknowledgeOf(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, ACKNOWLEDGE, keys, args) as Promise<number>;
  }
}
