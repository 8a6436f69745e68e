-- Seals an endpoint's waiting scans into its message, unless one is already out; forgets an idle endpoint.
-- KEYS message, sealed, waiting, since, busy (the account's slot)
-- ARGV endpoint, new message id, at
-- Returns [message fields, sealed fields], or nil (idle: forgotten).
local endpoint, at = ARGV[1], ARGV[3]
if redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('HDEL', KEYS[5], endpoint)
    redis.call('DEL', KEYS[4])
    return false
  end
  redis.call('RENAME', KEYS[3], KEYS[2])
  local since = redis.call('GET', KEYS[4]) or at
  redis.call('HSET', KEYS[1], 'id', ARGV[2], 'from', since, 'to', at, 'attempts', 0, 'nextAt', at)
  redis.call('SET', KEYS[4], at)
end
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2])}
