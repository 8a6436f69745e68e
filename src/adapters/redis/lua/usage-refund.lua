-- Undoes one usage-reserve.lua, once: only while its marker exists.
-- KEYS totals, generations, info, recent, changedQrs, changed, reservation
-- ARGV accountId, period, fingerprint, expireAt (s)
-- Returns 1 when undone, 0 when there was nothing to undo.
if redis.call('GETDEL', KEYS[7]) ~= ARGV[3] then return 0 end
if redis.call('HINCRBY', KEYS[2], ARGV[3], -1) <= 0 then
  redis.call('HDEL', KEYS[2], ARGV[3])
  redis.call('HDEL', KEYS[3], ARGV[3])
  redis.call('ZREM', KEYS[4], ARGV[3])
end
if tonumber(redis.call('HGET', KEYS[1], 'requests') or '0') > 0 then
  redis.call('HINCRBY', KEYS[1], 'requests', -1)
end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('ZADD', KEYS[5], version, ARGV[3])
redis.call('SADD', KEYS[6], ARGV[1])
for i = 1, 6 do redis.call('EXPIREAT', KEYS[i], ARGV[4], 'NX') end
return 1
