-- Adds the account's fields (`code` → scans, `code|device` → n) to each endpoint's waiting hash, then forgets them.
-- KEYS accounts set (the slot's bucket), the account's hash, the busy endpoints hash (the slot's bucket), then per
--      endpoint its waiting hash and its since marker — all in the account's slot
-- ARGV account, at, endpoint ids…
-- Returns how many fields (codes and devices) were fanned out.
local fields = redis.call('HGETALL', KEYS[2])
if #fields > 0 then
  for i = 3, #ARGV do
    local endpoint = ARGV[i]
    local waiting = KEYS[4 + (i - 3) * 2]
    for j = 1, #fields, 2 do redis.call('HINCRBY', waiting, fields[j], fields[j + 1]) end
    redis.call('HSETNX', KEYS[3], endpoint, ARGV[1])
    redis.call('SET', KEYS[5 + (i - 3) * 2], ARGV[2], 'NX')
  end
end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[1], ARGV[1])
return #fields / 2
