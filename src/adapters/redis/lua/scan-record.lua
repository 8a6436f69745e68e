-- One account's scans (all its keys in its slot, the two sets in that slot's bucket):
-- KEYS changed (set of account|code|day), accounts with scans for their webhooks (set), then each group's counts
--      (hash) and visitors (HyperLogLog), each day's salt, and the account's scans waiting for its webhooks
--      (hash: code → n, code|device → n)
-- ARGV the batch as JSON: [{c, h, s, e: key indexes, m: member, a: account, k: code, n: scans, b: bots,
--      d: {device: n}, l: {language: n}, r: {arm: n}, o: {country: n}, t: {city: n}, w: {hour: n},
--      v: [[visitor key, hour first seen]]}], ttl (s), a candidate salt
-- A visitor the day's HyperLogLog did not hold yet counts as that hour's new unique scanner (`u:<hour>`).
-- The salt is drawn once per day by whichever batch comes first and expires with the day's keys;
-- visitors are salted inside Redis (SHA-1 over salt and the visitor key), so the HyperLogLog never
-- sees the same value for one person on two days, and the salt never leaves Redis.
local batch = cjson.decode(ARGV[1])
local ttl = ARGV[2]
local salts = {}
for _, g in ipairs(batch) do
  local saltKey = KEYS[g.s]
  local salt = salts[saltKey]
  if not salt then
    salt = redis.call('GET', saltKey)
    if not salt then
      redis.call('SET', saltKey, ARGV[3], 'NX', 'EX', ttl)
      salt = redis.call('GET', saltKey)
    end
    salts[saltKey] = salt
  end
  local counts = KEYS[g.c]
  redis.call('HINCRBY', counts, 'scans', g.n)
  if g.b > 0 then redis.call('HINCRBY', counts, 'bots', g.b) end
  for device, n in pairs(g.d) do redis.call('HINCRBY', counts, 'd:' .. device, n) end
  for language, n in pairs(g.l) do redis.call('HINCRBY', counts, 'l:' .. language, n) end
  for arm, n in pairs(g.r) do redis.call('HINCRBY', counts, 'r:' .. arm, n) end
  for country, n in pairs(g.o) do redis.call('HINCRBY', counts, 'c:' .. country, n) end
  for city, n in pairs(g.t) do redis.call('HINCRBY', counts, 't:' .. city, n) end
  for hour, n in pairs(g.w) do redis.call('HINCRBY', counts, 'h:' .. hour, n) end
  for _, visitor in ipairs(g.v) do
    if redis.call('PFADD', KEYS[g.h], redis.sha1hex(salt .. ':' .. visitor[1])) == 1 then
      redis.call('HINCRBY', counts, 'u:' .. visitor[2], 1)
    end
  end
  redis.call('EXPIRE', counts, ttl)
  redis.call('EXPIRE', KEYS[g.h], ttl)
  redis.call('SADD', KEYS[1], g.m)
  if g.n > 0 then
    redis.call('HINCRBY', KEYS[g.e], g.k, g.n)
    for device, n in pairs(g.d) do redis.call('HINCRBY', KEYS[g.e], g.k .. '|' .. device, n) end
    redis.call('SADD', KEYS[2], g.a)
  end
end
return 1
