// The embedded default's stores: SQLite for records, metering and sessions on one database file. No other software.
import { SqliteAuditLog } from './audit-log.sqlite.js';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreAdapters } from '../contract.js';
import { FileBatchResults } from '../files/batch-results.files.js';
import { SqliteBatchStore } from './batch-store.sqlite.js';
import type { UsageLedger } from '../../domain/ports/usage-ledger.js';
import { SqliteAccountStore } from './account-store.sqlite.js';
import { CachedDynamicCodeStore } from '../dynamic-code-store.cached.js';
import { LocalInvalidationBus } from '../local-invalidation-bus.js';
import { SqliteDynamicCodeStore } from './dynamic-code-store.sqlite.js';
import { SqliteGuessLimiter } from './guess-limiter.sqlite.js';
import { SqliteScanAllowance } from './scan-allowance.sqlite.js';
import { SqliteScanEventSource } from './scan-event-source.sqlite.js';
import { SqliteScanWebhookStore } from './scan-webhook-store.sqlite.js';
import { SqliteScanLedger } from './scan-ledger.sqlite.js';
import { SqliteScanRecorder } from './scan-recorder.sqlite.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { SqliteKeyStore } from './key-store.sqlite.js';
import { SqliteLogoStore } from './logo-store.sqlite.js';
import { SqliteMemberStore } from './member-store.sqlite.js';
import { SqliteSessionStore } from './session-store.sqlite.js';
import { unavailableOnFailure } from './unavailable-on-failure.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { SqliteInvalidationBus } from './invalidation-bus.sqlite.js';
import { CachedKeyStore } from '../key-store.cached.js';
import { CachedSigningKeyStore } from '../signing-key-store.cached.js';
import { ThrottledLivenessBus } from '../throttled-liveness-bus.js';
import { SqliteSigningKeyStore } from './signing-key-store.sqlite.js';
import { SqliteDesignStore } from './design-store.sqlite.js';
import { SqliteCustomDomainStore } from './custom-domain-store.sqlite.js';
import { PlanChangePublishingAccountStore } from '../account-store.plan-events.js';
import { CachedScanPrivacy, scanPrivacyFromStore } from '../scan-privacy.cached.js';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';
import { SqliteUsageLedger } from './usage-ledger.sqlite.js';
import { GroupCommitMeter } from './group-commit-meter.js';
import { SqliteUsageMeter } from './usage-meter.sqlite.js';

/**
 * How long the embedded default trusts a cached slug: the delay before a change made by another process (qrm) is
 * followed.
 */
const EMBEDDED_SLUG_TTL_MS = 1_000;
/** How late another process's commit (qrm, the portal of another instance) may reach a scan's privacy setting. */
const EMBEDDED_SCAN_PRIVACY_LAG_MS = 100;
/**
 * How late another process's commit (qrm revoking a signing key) may reach the cached signing keys: docs/signed-urls.md
 * promises a second.
 */
const EMBEDDED_SIGNING_KEY_LAG_MS = 100;

export interface SqliteStoresOptions {
  /**
   * Cache slug lookups in this process (default true). Off when SQLite is the system of record under
   * Redis mode: there the Redis layer caches them, invalidated over pub/sub, and a second cache would hold stale
   * targets.
   */
  cacheSlugs?: boolean;
  /**
   * Cache credentials in this process (default true), dropped when this process revokes a key or changes a
   * plan, and whenever another process commits to the file. Off under Redis mode, whose own cache is shared.
   */
  cacheCredentials?: boolean;
  /** Where the checkpoint thread says it stopped. */
  log?: AdapterLog;
}

export function createSqliteStores(
  dataDir: string | ':memory:',
  options: SqliteStoresOptions = {},
): StoreAdapters & { usageLedger: UsageLedger } {
  return sqliteStoresOn(openDatabase(dataDir), dataDir, options);
}

/**
 * The same stores over a connection the caller opened (the fault tests make it full or read-only); close() closes it.
 */
export function sqliteStoresOn(
  db: SqliteDatabase,
  dataDir: string | ':memory:' = ':memory:',
  options: SqliteStoresOptions = {},
): StoreAdapters & { usageLedger: UsageLedger } {
  // An in-memory database keeps its batch files in a private temporary directory, removed on close.
  const resultsDir = dataDir === ':memory:' ? mkdtempSync(join(tmpdir(), 'qrm-batches-')) : dataDir;
  const scans = new SqliteScanRecorder(db);
  // A file database checkpoints on a thread of its own; an in-memory one (tests) has no log to copy back.
  const checkpointer = dataDir === ':memory:' ? undefined : new WalCheckpointer(db, options.log ?? SILENT_LOG);
  const codes = unavailableOnFailure(new SqliteDynamicCodeStore(db));
  const accounts = unavailableOnFailure(new SqliteAccountStore(db));
  const keys = unavailableOnFailure(new SqliteKeyStore(db));
  const signingKeys = unavailableOnFailure(new SqliteSigningKeyStore(db));
  const credentialBus = options.cacheCredentials === false ? undefined : new SqliteInvalidationBus(db);
  return {
    // A key is resolved on every request: from memory, unless it was revoked or its plan changed (here or by another
    // process).
    accounts: credentialBus ? new PlanChangePublishingAccountStore(accounts, credentialBus) : accounts,
    keys: credentialBus ? new CachedKeyStore(keys, credentialBus) : keys,
    // A signed URL's key is looked up on every hit: data_version is read at most every 100 ms for it (API keys read it
    // every time).
    signingKeys: credentialBus
      ? new CachedSigningKeyStore(signingKeys, new ThrottledLivenessBus(credentialBus, EMBEDDED_SIGNING_KEY_LAG_MS))
      : signingKeys,
    designs: unavailableOnFailure(new SqliteDesignStore(db)),
    auditLog: unavailableOnFailure(new SqliteAuditLog(db)),
    members: unavailableOnFailure(new SqliteMemberStore(db)),
    meter: unavailableOnFailure(new GroupCommitMeter(db, new SqliteUsageMeter(db))),
    sessions: unavailableOnFailure(new SqliteSessionStore(db)),
    usageLedger: unavailableOnFailure(new SqliteUsageLedger(db)),
    batches: unavailableOnFailure(new SqliteBatchStore(db)),
    batchResults: new FileBatchResults(resultsDir),
    // Slugs cached for a second: this process's own changes drop them at once, another process's (qrm) show within the
    // second.
    codes:
      options.cacheSlugs === false
        ? codes
        : new CachedDynamicCodeStore(codes, new LocalInvalidationBus(), { ttlMs: EMBEDDED_SLUG_TTL_MS }),
    domains: unavailableOnFailure(new SqliteCustomDomainStore(db)),
    scanLedger: unavailableOnFailure(new SqliteScanLedger(db)),
    scans,
    scanPrivacy: credentialBus
      ? new CachedScanPrivacy(accounts, new ThrottledLivenessBus(credentialBus, EMBEDDED_SCAN_PRIVACY_LAG_MS))
      : scanPrivacyFromStore(accounts),
    scanAllowance: unavailableOnFailure(new SqliteScanAllowance(db)),
    guesses: unavailableOnFailure(new SqliteGuessLimiter(db)),
    scanWebhooks: unavailableOnFailure(new SqliteScanWebhookStore(db)),
    scanEvents: unavailableOnFailure(new SqliteScanEventSource(db)),
    logos: unavailableOnFailure(new SqliteLogoStore(db)),
    probes: {
      sqlite: async () => {
        db.prepare('SELECT 1').get();
      },
    },
    async close() {
      await scans.close(); // the last batch of scans, before the connection goes
      await checkpointer?.close();
      db.close();
      if (dataDir === ':memory:') await rm(resultsDir, { recursive: true, force: true });
    },
  };
}
