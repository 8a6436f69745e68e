// The embedded default's stores: SQLite for records, metering and sessions on one database file. No other software.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreAdapters } from '../index.js';
import { FileBatchResults } from '../files/batch-results.files.js';
import { SqliteBatchStore } from './batch-store.sqlite.js';
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
  return sqliteStoresOn(openDatabase(dataDir), dataDir);
}

/** The same stores over a connection the caller opened (the fault tests make it full or read-only); close() closes it. */
export function sqliteStoresOn(db: SqliteDatabase, dataDir: string | ':memory:' = ':memory:'): StoreAdapters & { usageLedger: UsageLedger } {
  // An in-memory database keeps its batch files in a private temporary directory, removed on close.
  const resultsDir = dataDir === ':memory:' ? mkdtempSync(join(tmpdir(), 'qrm-batches-')) : dataDir;
  return {
    accounts: unavailableOnFailure(new SqliteAccountStore(db)),
    keys: unavailableOnFailure(new SqliteKeyStore(db)),
    meter: unavailableOnFailure(new GroupCommitMeter(db, new SqliteUsageMeter(db))),
    sessions: unavailableOnFailure(new SqliteSessionStore(db)),
    usageLedger: unavailableOnFailure(new SqliteUsageLedger(db)),
    batches: unavailableOnFailure(new SqliteBatchStore(db)),
    batchResults: new FileBatchResults(resultsDir),
    probes: {
      sqlite: async () => {
        db.prepare('SELECT 1').get();
      },
    },
    async close() {
      db.close();
      if (dataDir === ':memory:') await rm(resultsDir, { recursive: true, force: true });
    },
  };
}

/**
 * MongoDB mode has no batch store of its own yet: batches and their files stay in QR_DATA_DIR (SQLite + files),
 * which the API and render processes must share (one host, or one shared volume).
 */
export function createFileBatchStores(dataDir: string): Required<Pick<StoreAdapters, 'batches' | 'batchResults'>> & { close(): Promise<void> } {
  const db = openDatabase(dataDir);
  return { batches: unavailableOnFailure(new SqliteBatchStore(db)), batchResults: new FileBatchResults(dataDir), close: async () => void db.close() };
}
