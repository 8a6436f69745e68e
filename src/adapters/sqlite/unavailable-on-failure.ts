// Wraps a SQLite-backed adapter so storage failures (locked, full, read-only, closed) become 503 unavailable.
import Database from 'better-sqlite3';
import { unavailableWhen } from '../unavailable-when.js';

function isStorageFailure(error: unknown): boolean {
  if (error instanceof Database.SqliteError) return true;
  // better-sqlite3 reports a closed handle as a TypeError rather than a SqliteError.
  return error instanceof TypeError && /database connection is not open/i.test(error.message);
}

/** Every method of the adapter, unchanged, except that storage failures surface as ApiError `unavailable`. */
export function unavailableOnFailure<T extends object>(adapter: T): T {
  return unavailableWhen(adapter, isStorageFailure, 'the data store is not available right now; retry shortly');
}
