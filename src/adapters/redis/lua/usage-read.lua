-- An account's usage in a period.
-- KEYS totals, generations
-- Returns {requests, qrs}, or nil when Redis holds nothing for the account and period.
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return {tonumber(redis.call('HGET', KEYS[1], 'requests') or '0'), redis.call('HLEN', KEYS[2])}
