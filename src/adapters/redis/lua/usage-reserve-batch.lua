-- A whole batch: both limits checked for all of it, then everything counted, in one step; a refusal counts nothing.
-- A limit of 'none' is unlimited: its check is skipped (the usage is still counted).
-- KEYS totals, generations, info, recent, changedQrs, accounts, changed
-- ARGV accountId, period, atMs, requestLimit, qrLimit, expireAt (s), requests,
--      then [fingerprint, count, type, payload]...
-- Returns {1|0, reason, requests, qrs, requestsNeeded, qrsNeeded}.
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
