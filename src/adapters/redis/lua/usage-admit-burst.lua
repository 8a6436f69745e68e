-- One slot of the burst window alone (the same sorted set usage-reserve.lua fills).
-- KEYS burst
-- ARGV atMs, burstLimit, burstWindowMs, token
-- Returns {1|0, burstUsed}.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[3]))
local used = redis.call('ZCARD', KEYS[1])
if used >= tonumber(ARGV[2]) then return {0, used} end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[3]))
return {1, used + 1}
