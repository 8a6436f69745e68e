// GuessLimiter on SQLite: a row per code and address bucket, its window restarted by the first guess after it ends.
import type { GuessLimiter } from '../../domain/ports/guess-limiter.js';
import type { SqliteDatabase } from './database.js';

export class SqliteGuessLimiter implements GuessLimiter {
  readonly #attempt;
  readonly #forgive;
  readonly #prune;
  #prunedAt = 0;

  constructor(db: SqliteDatabase) {
    this.#attempt = db.prepare<
      [{ key: string; now: number; window: number }],
      { guesses: number; window_ends: number }
    >(
      `INSERT INTO password_guesses (guess_key, window_ends, guesses) VALUES (@key, @now + @window, 1)
       ON CONFLICT (guess_key) DO UPDATE SET
         guesses = CASE WHEN window_ends <= @now THEN 1 ELSE guesses + 1 END,
         window_ends = CASE WHEN window_ends <= @now THEN @now + @window ELSE window_ends END
       RETURNING guesses, window_ends`,
    );
    this.#forgive = db.prepare<[string], unknown>(
      'UPDATE password_guesses SET guesses = guesses - 1 WHERE guess_key = ? AND guesses > 0',
    );
    this.#prune = db.prepare<[number], unknown>('DELETE FROM password_guesses WHERE window_ends <= ?');
  }

  async attempt(key: string, windowMs: number, now: Date): Promise<{ guesses: number; resetAt: Date }> {
    const at = now.getTime();
    // Ended windows are swept at most once per window length, so the table holds about one window's keys.
    if (at - this.#prunedAt >= windowMs) {
      this.#prune.run(at);
      this.#prunedAt = at;
    }
    const row = this.#attempt.get({ key, now: at, window: windowMs })!;
    return { guesses: row.guesses, resetAt: new Date(row.window_ends) };
  }

  async forgive(key: string): Promise<void> {
    this.#forgive.run(key);
  }
}
