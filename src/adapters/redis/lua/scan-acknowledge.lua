-- Unmarks the code-day only if nothing was counted after the snapshot and the code was not erased since it was read.
-- KEYS counts, changed, the code's erase generation
-- ARGV member, scans and bots in the snapshot, the erase generation the snapshot was read at
-- Answers 1, or 0 when the code was erased since the snapshot: the code-day is left as it is.
local generation = tonumber(redis.call('GET', KEYS[3]) or '0')
if generation ~= tonumber(ARGV[4]) then return 0 end
local counted = redis.call('HMGET', KEYS[1], 'scans', 'bots')
local scans = tonumber(counted[1] or '0')
local bots = tonumber(counted[2] or '0')
if scans <= tonumber(ARGV[2]) and bots <= tonumber(ARGV[3]) then redis.call('SREM', KEYS[2], ARGV[1]) end
return 1
