// Port: wrong password guesses per code and client address, counted in a fixed window.

/**
 * Contract (test/contracts/guess-limiter.contract.ts): `attempt` counts one guess atomically and answers how many
 * the key has made in the current window (including this one) and when the window ends; `forgive` takes one back
 * (a right answer does not count). A window starts with the first guess and lasts `windowMs`.
 */
export interface GuessLimiter {
  attempt(key: string, windowMs: number, now: Date): Promise<{ guesses: number; resetAt: Date }>;
  forgive(key: string): Promise<void>;
}
