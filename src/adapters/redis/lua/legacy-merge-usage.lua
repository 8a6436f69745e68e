-- Moves one account-month of the untagged layout into today's: adds the old counts to the new ones (a new instance may
-- have counted already), keeps the earlier first-seen record and the later last-used time, marks every code changed
-- for the rollup, carries the expiry over, then deletes the old keys.
-- KEYS old totals, gens, info, recent, changed;
--      new totals, gens, info, recent, changed, accounts, changed (buckets), periods
-- ARGV accountId, period
-- Returns 1 when something was moved, 0 when the old keys held no counts.
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
