-- One consistent snapshot of an account's period for the rollup.
-- KEYS totals, generations, info, recent, changedQrs
-- ARGV max codes
-- Returns {requests, version, qrs, [fingerprint, changeVersion, generations, info JSON, lastAt]...}, or nil when the
-- counters are gone (expired): then there is nothing to write.
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local totals = redis.call('HMGET', KEYS[1], 'requests', 'version')
local changed = redis.call('ZRANGE', KEYS[5], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local codes = {}
for i = 1, #changed, 2 do
  local fp = changed[i]
  codes[#codes + 1] = fp
  codes[#codes + 1] = changed[i + 1]
  codes[#codes + 1] = redis.call('HGET', KEYS[2], fp) or '0'
  codes[#codes + 1] = redis.call('HGET', KEYS[3], fp) or ''
  codes[#codes + 1] = redis.call('ZSCORE', KEYS[4], fp) or '0'
end
return {totals[1] or '0', totals[2] or '0', redis.call('HLEN', KEYS[2]), codes}
