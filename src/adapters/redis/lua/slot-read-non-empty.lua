#!lua flags=no-writes,allow-cross-slot-keys
-- Reads the slot buckets that hold something, on one master. Read-only; the keys it reads span the master's slots,
-- which its flags allow as long as each is served there (a cluster refuses it while one moves). A cluster also
-- refuses one command over several slots, so there each key is looked up alone; one Redis looks up a chunk at once
-- and only a chunk holding one key by key.
-- KEYS one bucket key of the master (it routes the script there)
-- ARGV 'members' with a count, or 'hash' and 0; the keys looked up together (1 on a cluster); then every bucket's key
--      on that master (one Redis: all of them)
-- Returns [index in those keys, read, …] for the keys that exist only: SRANDMEMBER up to the count in all (then it
-- stops), or HGETALL.
local found, left, mode, chunk = {}, tonumber(ARGV[2]), ARGV[1], tonumber(ARGV[3])
local function read(i)
  local value
  if mode == 'members' then
    value = redis.call('SRANDMEMBER', ARGV[i], left)
    left = left - #value
  else
    value = redis.call('HGETALL', ARGV[i])
  end
  found[#found + 1] = i - 3
  found[#found + 1] = value
end
for from = 4, #ARGV, chunk do
  if mode == 'members' and left <= 0 then break end
  if chunk == 1 then
    if redis.call('EXISTS', ARGV[from]) == 1 then read(from) end
  elseif redis.call('EXISTS', unpack(ARGV, from, math.min(from + chunk - 1, #ARGV))) > 0 then
    for i = from, math.min(from + chunk - 1, #ARGV) do
      if mode == 'members' and left <= 0 then break end
      if redis.call('EXISTS', ARGV[i]) == 1 then read(i) end
    end
  end
end
return found
