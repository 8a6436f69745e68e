-- The account index is a sorted set of session ids scored by expiry: stale members are pruned, and the
-- index itself expires with its longest-lived session. One key, so it is safe on a cluster.
-- KEYS the account's index
-- ARGV the session's expiry (ms), its id, now (ms)
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
return 1
