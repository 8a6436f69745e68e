-- Gives back each batch item once: an index already in the refunded set is skipped.
-- KEYS totals, generations, info, recent, changedQrs, changed, refunded (SET of the batch's refunded indexes)
-- ARGV accountId, period, expireAt (s), then [index, fingerprint]...
-- Returns how many were refunded.
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
    if tonumber(redis.call('HGET', KEYS[1], 'requests') or '0') > 0 then
      redis.call('HINCRBY', KEYS[1], 'requests', -1)
    end
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
