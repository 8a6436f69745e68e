-- Takes one scan of a code's allowance. No TTL: the limit holds for the code's life.
-- KEYS counter
-- ARGV maxScans
-- Returns 1 and the counter moved, or 0 and nothing changed.
local taken = tonumber(redis.call('GET', KEYS[1]) or '0')
if taken >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
return 1
