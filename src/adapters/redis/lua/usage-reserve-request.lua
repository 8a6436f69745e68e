-- One request and no code (a decode): the burst, then the monthly requests, checked and counted in one step, as
-- usage-reserve.lua does for those two (generations is only read, for the QR count answered). The marker holds
-- 'request' so that only usage-refund-request.lua can take it back. A limit of 'none' is unlimited.
-- KEYS totals, generations, accounts, changed, reservation, burst
-- ARGV accountId, period, atMs, requestLimit, expireAt (s), reservationTtl (s), burstLimit, burstWindowMs, token
-- Returns {1|0, reason, requests, qrs, burstUsed}.
local requests = tonumber(redis.call('HGET', KEYS[1], 'requests') or '0')
local qrs = redis.call('HLEN', KEYS[2])
local burstLimit = tonumber(ARGV[7])
local burstUsed = 0
if burstLimit then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[8]))
  burstUsed = redis.call('ZCARD', KEYS[6])
  if burstUsed >= burstLimit then return {0, 'rate_limited', requests, qrs, burstUsed} end
end
local requestLimit = tonumber(ARGV[4])
if requestLimit and requests >= requestLimit then return {0, 'quota_exceeded', requests, qrs, burstUsed} end
requests = redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('EXPIREAT', KEYS[1], ARGV[5])
for i = 3, 4 do redis.call('EXPIREAT', KEYS[i], ARGV[5]) end
redis.call('SET', KEYS[5], 'request', 'EX', ARGV[6])
if burstLimit then
  burstUsed = burstUsed + 1
  redis.call('ZADD', KEYS[6], ARGV[3], ARGV[9])
  -- Redis expires by its own clock: twice the window leaves room for instances whose clocks differ a little.
  redis.call('PEXPIRE', KEYS[6], 2 * tonumber(ARGV[8]))
end
return {1, '', requests, qrs, burstUsed}
