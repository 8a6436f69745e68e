// Wraps a SQLite-backed adapter so storage failures (locked, full, read-only, closed) become 503 unavailable.
import Database from 'better-sqlite3';
import { ApiError } from '../../domain/errors.js';

function isStorageFailure(error: unknown): boolean {
  if (error instanceof Database.SqliteError) return true;
  // better-sqlite3 reports a closed handle as a TypeError rather than a SqliteError.
  return error instanceof TypeError && /database connection is not open/i.test(error.message);
}

/** Every method of the adapter, unchanged, except that storage failures surface as ApiError `unavailable`. */
export function unavailableOnFailure<T extends object>(adapter: T): T {
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          // Called on the target itself: the adapters keep their statements in #private fields.
          return await (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          if (!isStorageFailure(error)) throw error;
          throw new ApiError('unavailable', 'the data store is not available right now; retry shortly', { retryAfterSeconds: 1, cause: error });
        }
      };
    },
  });
}
