-- An account's most recent codes in a period.
-- KEYS totals, generations, info, recent
-- ARGV limit (> 0)
-- Returns flat [fingerprint, lastAt, generations, info JSON]..., most recent first, or nil as usage-read.lua.
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local recent = redis.call('ZREVRANGE', KEYS[4], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #recent, 2 do
  out[#out + 1] = recent[i]
  out[#out + 1] = recent[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], recent[i]) or '0'
  out[#out + 1] = redis.call('HGET', KEYS[3], recent[i]) or ''
end
return out
