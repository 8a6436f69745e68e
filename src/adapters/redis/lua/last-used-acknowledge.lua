-- Forgets the entries a flush wrote, each only while it still holds the time that was written (a later push stays).
-- KEYS the log (hash: key id -> ms)
-- ARGV [key id, ms]...
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 1
