-- Adds one account's waiting scan events to today's keys.
-- KEYS old hash, new hash, new bucket set
-- ARGV accountId
-- Returns how many codes were moved.
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do redis.call('HINCRBY', KEYS[2], fields[i], fields[i + 1]) end
if #fields > 0 then redis.call('SADD', KEYS[3], ARGV[1]) end
redis.call('DEL', KEYS[1])
return #fields / 2
