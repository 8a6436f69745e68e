// InvalidationBus for the embedded default: this process's changes reach its caches at once, and so does any commit by
// another process (qrm, a second instance) to the same file.
import type { Invalidation, InvalidationBus } from '../../domain/ports/invalidation-bus.js';
import type { SqliteDatabase } from './database.js';

interface Listener {
  onMessage: (invalidation: Invalidation) => void;
  onResync: () => void;
}

/**
 * SQLite's `PRAGMA data_version` changes whenever another connection commits to the database file, and
 * never for this connection's own commits. A cache asks `live()` before it trusts an entry: a changed
 * version means someone else wrote (maybe a revocation), so every listener forgets what it holds first.
 * That check costs a fraction of the lookup it saves, and a revocation by qrm takes effect at once.
 */
export class SqliteInvalidationBus implements InvalidationBus {
  readonly #dataVersion;
  readonly #listeners: Listener[] = [];
  #seen: number | undefined;

  constructor(db: SqliteDatabase) {
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  async publish(invalidation: Invalidation): Promise<void> {
    for (const listener of this.#listeners) listener.onMessage(invalidation);
  }

  listen(onMessage: (invalidation: Invalidation) => void, onResync: () => void): void {
    this.#listeners.push({ onMessage, onResync });
  }

  live(): boolean {
    let version: number;
    try {
      version = this.#dataVersion.get()!;
    } catch {
      return false; // the database is failing: no cache may be trusted, and the lookup itself will say so
    }
    if (version !== this.#seen) {
      this.#seen = version;
      for (const listener of this.#listeners) listener.onResync();
    }
    return true;
  }

  async close(): Promise<void> {
    this.#listeners.length = 0;
  }
}
