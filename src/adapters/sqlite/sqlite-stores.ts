// The embedded default's stores: SQLite for records, metering and sessions on one database file. No other software.
import type { StoreAdapters } from '../index.js';
import type { UsageLedger } from '../../domain/ports/usage-ledger.js';
import { SqliteAccountStore } from './account-store.sqlite.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { SqliteKeyStore } from './key-store.sqlite.js';
import { SqliteSessionStore } from './session-store.sqlite.js';
import { unavailableOnFailure } from './unavailable-on-failure.js';
import { SqliteUsageLedger } from './usage-ledger.sqlite.js';
import { GroupCommitMeter } from './group-commit-meter.js';
import { SqliteUsageMeter } from './usage-meter.sqlite.js';

export function createSqliteStores(dataDir: string | ':memory:'): StoreAdapters & { usageLedger: UsageLedger } {
  return sqliteStoresOn(openDatabase(dataDir));
}

/** The same stores over a connection the caller opened (the fault tests make it full or read-only); close() closes it. */
export function sqliteStoresOn(db: SqliteDatabase): StoreAdapters & { usageLedger: UsageLedger } {
  return {
    accounts: unavailableOnFailure(new SqliteAccountStore(db)),
    keys: unavailableOnFailure(new SqliteKeyStore(db)),
    meter: unavailableOnFailure(new GroupCommitMeter(db, new SqliteUsageMeter(db))),
    sessions: unavailableOnFailure(new SqliteSessionStore(db)),
    usageLedger: unavailableOnFailure(new SqliteUsageLedger(db)),
    probes: {
      sqlite: async () => {
        db.prepare('SELECT 1').get();
      },
    },
    async close() {
      db.close();
    },
  };
}
