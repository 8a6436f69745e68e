-- Counts one guess in the window: the window starts with the first guess and ends with the counter.
-- KEYS counter
-- ARGV window (ms)
-- Returns {guesses in the window (this one included), ms left of it}.
local guesses = redis.call('INCR', KEYS[1])
if guesses == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); left = tonumber(ARGV[1]) end
return {guesses, left}
