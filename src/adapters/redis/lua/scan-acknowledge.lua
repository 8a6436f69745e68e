-- Unmarks the code-day only if nothing was counted after the snapshot.
-- KEYS counts, changed
-- ARGV member, scans and bots in the snapshot
local counted = redis.call('HMGET', KEYS[1], 'scans', 'bots')
local scans = tonumber(counted[1] or '0')
local bots = tonumber(counted[2] or '0')
if scans <= tonumber(ARGV[2]) and bots <= tonumber(ARGV[3]) then redis.call('SREM', KEYS[2], ARGV[1]) end
return 1
