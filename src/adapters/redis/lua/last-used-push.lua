-- Pushes an instance's buffered last-used times, keeping the later time per key, so pushes from many instances and
-- acknowledgements (last-used-acknowledge.lua) can interleave freely.
-- KEYS the log (hash: key id -> ms)
-- ARGV [key id, ms]...
for i = 1, #ARGV, 2 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if not current or tonumber(current) < tonumber(ARGV[i + 1]) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return 1
