-- Forgets only the changes a snapshot saw; the account stays marked if anything changed since.
-- KEYS totals, changedQrs, changed
-- ARGV accountId, version, [fingerprint, changeVersion]...
-- Returns 1 when the account is unmarked, 0 when it stays marked.
for i = 3, #ARGV, 2 do
  local seen = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if seen and tonumber(seen) <= tonumber(ARGV[i + 1]) then redis.call('ZREM', KEYS[2], ARGV[i]) end
end
local version = redis.call('HGET', KEYS[1], 'version') or '0'
if version == ARGV[2] and redis.call('ZCARD', KEYS[2]) == 0 then
  redis.call('SREM', KEYS[3], ARGV[1])
  return 1
end
return 0
