-- Undoes one request reserved with no code by usage-reserve.lua, once: only while its marker ('request') exists.
-- KEYS totals, changed, reservation
-- ARGV accountId, period, expireAt (s)
-- Returns 1 when undone, 0 when there was nothing to undo.
if redis.call('GETDEL', KEYS[3]) ~= 'request' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'requests') or '0') > 0 then
  redis.call('HINCRBY', KEYS[1], 'requests', -1)
end
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('SADD', KEYS[2], ARGV[1])
for i = 1, 2 do redis.call('EXPIREAT', KEYS[i], ARGV[3], 'NX') end
return 1
