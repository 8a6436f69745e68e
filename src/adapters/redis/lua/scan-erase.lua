-- Erases a code's hot scan data in one step. Its erase generation goes up first, so a rollup holding a snapshot read
-- before it learns, when it acknowledges, that what it wrote must be erased again; then the days' counters, visitor
-- sets and pending rollups go.
-- KEYS the code's erase generation (string), the changed set (account|code|day), then each day's counts (hash) and
--      visitors (HyperLogLog)
-- ARGV how long the generation is kept (s), then the changed-set member of each day
-- Answers the new generation.
local generation = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
for i = 2, #ARGV do redis.call('SREM', KEYS[2], ARGV[i]) end
return generation
