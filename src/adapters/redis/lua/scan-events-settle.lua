-- Settles a delivered message (retryAt '') or schedules its next attempt; a message sealed since is left alone.
-- KEYS message, sealed
-- ARGV message id, retryAt ('' when done)
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then
  redis.call('HINCRBY', KEYS[1], 'attempts', 1)
  redis.call('HSET', KEYS[1], 'nextAt', ARGV[2])
else
  redis.call('DEL', KEYS[1], KEYS[2])
end
return 1
