-- Reserves one request and, given a fingerprint, one generation: the burst window, then the monthly limits, checked
-- and counted in one step; a refused request counts nothing. A limit of 'none' is unlimited: its check is skipped
-- (and the burst key untouched). The burst key is a sorted set of the admitted reservations' tokens scored by their
-- time: a sliding window. Without a fingerprint (a request with no code, a decode) the code keys (generations, info,
-- recent, changedQrs) are only read, and the marker holds 'request': only usage-refund-request.lua takes it back.
-- KEYS totals, generations, info, recent, changedQrs, accounts, changed, reservation, burst (one slot: the account's)
-- ARGV accountId, period, fingerprint ('' for no code), type, payload, atMs, requestLimit, qrLimit, expireAt (s),
--      reservationTtl (s), burstLimit, burstWindowMs, token
-- Returns {1|0, reason, requests, qrs, burstUsed}.
local requests = tonumber(redis.call('HGET', KEYS[1], 'requests') or '0')
local qrs = redis.call('HLEN', KEYS[2])
local burstLimit = tonumber(ARGV[11])
local burstUsed = 0
if burstLimit then
  redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', tonumber(ARGV[6]) - tonumber(ARGV[12]))
  burstUsed = redis.call('ZCARD', KEYS[9])
  if burstUsed >= burstLimit then return {0, 'rate_limited', requests, qrs, burstUsed} end
end
local requestLimit = tonumber(ARGV[7])
if requestLimit and requests >= requestLimit then return {0, 'quota_exceeded', requests, qrs, burstUsed} end
local fingerprint = ARGV[3]
local withCode = fingerprint ~= ''
local known = withCode and redis.call('HEXISTS', KEYS[2], fingerprint) == 1
local qrLimit = tonumber(ARGV[8])
if withCode and not known and qrLimit and qrs >= qrLimit then
  return {0, 'qr_quota_exceeded', requests, qrs, burstUsed}
end
requests = redis.call('HINCRBY', KEYS[1], 'requests', 1)
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
local marker = 'request'
if withCode then
  marker = fingerprint
  redis.call('HINCRBY', KEYS[2], fingerprint, 1)
  if not known then
    qrs = qrs + 1
    redis.call('HSET', KEYS[3], fingerprint, cjson.encode({ARGV[4], ARGV[5], ARGV[6]}))
  end
  redis.call('ZADD', KEYS[4], 'GT', ARGV[6], fingerprint)
  redis.call('ZADD', KEYS[5], version, fingerprint)
end
redis.call('SADD', KEYS[6], ARGV[1])
redis.call('SADD', KEYS[7], ARGV[1])
for i = 1, 7 do
  if withCode or i == 1 or i >= 6 then redis.call('EXPIREAT', KEYS[i], ARGV[9]) end
end
redis.call('SET', KEYS[8], marker, 'EX', ARGV[10])
if burstLimit then
  burstUsed = burstUsed + 1
  redis.call('ZADD', KEYS[9], ARGV[6], ARGV[13])
  -- Redis expires by its own clock: twice the window leaves room for instances whose clocks differ a little.
  redis.call('PEXPIRE', KEYS[9], 2 * tonumber(ARGV[12]))
end
return {1, '', requests, qrs, burstUsed}
