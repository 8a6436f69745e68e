// The embedded default: SQLite for records and metering, a Piscina pool for rendering. No other software.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { AccountStore } from '../domain/ports/account-store.js';
import type { DynamicCodeStore } from '../domain/ports/dynamic-code-store.js';
import type { ScanCounters, ScanLedger, ScanRecorder } from '../domain/ports/scan-ledger.js';
import type { KeyStore } from '../domain/ports/key-store.js';
import type { LastUsedLog } from '../domain/ports/last-used-log.js';
import type { Renderer } from '../domain/ports/renderer.js';
import type { SessionStore } from '../domain/ports/session-store.js';
import type { UsageCounters } from '../domain/ports/usage-counters.js';
import type { UsageLedger } from '../domain/ports/usage-ledger.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';
import { CachedDynamicCodeStore } from './dynamic-code-store.cached.js';
import { LocalInvalidationBus } from './local-invalidation-bus.js';
import { SqliteAccountStore } from './sqlite/account-store.sqlite.js';
import { SqliteDynamicCodeStore } from './sqlite/dynamic-code-store.sqlite.js';
import { SqliteScanLedger } from './sqlite/scan-ledger.sqlite.js';
import { SqliteScanRecorder } from './sqlite/scan-recorder.sqlite.js';
import { openDatabase, type SqliteDatabase } from './sqlite/database.js';
import { SqliteKeyStore } from './sqlite/key-store.sqlite.js';
import { SqliteSessionStore } from './sqlite/session-store.sqlite.js';
import { unavailableOnFailure } from './sqlite/unavailable-on-failure.js';
import { SqliteUsageLedger } from './sqlite/usage-ledger.sqlite.js';
import { GroupCommitMeter } from './sqlite/group-commit-meter.js';
import { SqliteUsageMeter } from './sqlite/usage-meter.sqlite.js';

/** Everything the services need from the outside world, and the one way to release it. */
export interface Adapters {
  accounts: AccountStore;
  keys: KeyStore;
  meter: UsageMeter;
  /** Portal sessions (server-side, revocable). */
  sessions: SessionStore;
  renderer: Renderer;
  /** Dynamic codes: what each slug points at. */
  codes: DynamicCodeStore;
  /** Daily scan counts, the system of record the stats are read from. */
  scanLedger: ScanLedger;
  /** Where the redirect records scans (after answering). */
  scans: ScanRecorder;
  /** Production mode: the hot scan counters (Redis) that the scan rollup copies into the ledger. */
  scanCounters?: ScanCounters;
  /** Where the API notes key use for the last-used flush job; absent: the app keeps an in-memory buffer. */
  lastUsed?: LastUsedLog;
  /** Production mode: the hot usage counters (Redis) that the rollup copies into the ledger. */
  usageCounters?: UsageCounters;
  /** Where rolled-up usage is kept, and read back once Redis no longer holds a month. */
  usageLedger?: UsageLedger;
  /** Production mode: the Redis command client (the adapters' to close) and key prefix, for HTTP state every instance shares (the portal's rate limits). */
  redis?: { client: Redis; keyPrefix: string };
  /** Who runs the background jobs: the app on an in-process scheduler (default), or the separate worker process (BullMQ). */
  jobs?: 'in-process' | 'worker';
  /** One check per dependency, for /readyz: each resolves when the dependency answers and throws when it does not. */
  probes: Record<string, () => Promise<void>>;
  close(): Promise<void>;
}

export type StoreAdapters = Omit<Adapters, 'renderer'>;

/** How long the embedded default trusts a cached slug: the delay before a change made by another process (qrm) is followed. */
const EMBEDDED_SLUG_TTL_MS = 1_000;

export interface SqliteStoresOptions {
  /**
   * Cache slug lookups in this process (default true). Off when SQLite is the system of record under
   * Redis mode: there the Redis layer caches them, invalidated over pub/sub, and a second cache would hold stale targets.
   */
  cacheSlugs?: boolean;
}

export function createSqliteStores(dataDir: string | ':memory:', options: SqliteStoresOptions = {}): StoreAdapters & { usageLedger: UsageLedger } {
  return sqliteStoresOn(openDatabase(dataDir), options);
}

/** The same stores over a connection the caller opened (the fault tests make it full or read-only); close() closes it. */
export function sqliteStoresOn(db: SqliteDatabase, options: SqliteStoresOptions = {}): StoreAdapters & { usageLedger: UsageLedger } {
  const scans = new SqliteScanRecorder(db);
  const codes = unavailableOnFailure(new SqliteDynamicCodeStore(db));
  return {
    accounts: unavailableOnFailure(new SqliteAccountStore(db)),
    keys: unavailableOnFailure(new SqliteKeyStore(db)),
    meter: unavailableOnFailure(new GroupCommitMeter(db, new SqliteUsageMeter(db))),
    sessions: unavailableOnFailure(new SqliteSessionStore(db)),
    usageLedger: unavailableOnFailure(new SqliteUsageLedger(db)),
    // Slugs cached for a second: this process's own changes drop them at once, another process's (qrm) show within the second.
    codes: options.cacheSlugs === false ? codes : new CachedDynamicCodeStore(codes, new LocalInvalidationBus(), { ttlMs: EMBEDDED_SLUG_TTL_MS }),
    scanLedger: unavailableOnFailure(new SqliteScanLedger(db)),
    scans,
    probes: {
      sqlite: async () => {
        db.prepare('SELECT 1').get();
      },
    },
    async close() {
      await scans.close(); // the last batch of scans, before the connection goes
      db.close();
    },
  };
}
