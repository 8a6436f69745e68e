-- One guess taken back, never below zero, the window kept.
-- KEYS counter
local guesses = tonumber(redis.call('GET', KEYS[1]) or '0')
if guesses > 0 then redis.call('DECR', KEYS[1]) end
return 1
