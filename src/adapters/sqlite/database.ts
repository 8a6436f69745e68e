// Opens the embedded SQLite database (WAL) and brings its schema up to date, keyed on PRAGMA user_version.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/** Each entry moves the schema one version forward; never edit a shipped entry, append a new one. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    plan TEXT NOT NULL,
    identity_provider TEXT NOT NULL,
    identity_subject TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (identity_provider, identity_subject)
  );
  CREATE INDEX accounts_by_email ON accounts (email);

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_by_account ON api_keys (account_id);

  CREATE TABLE usage (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    requests INTEGER NOT NULL DEFAULT 0,
    qrs INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period)
  ) WITHOUT ROWID;

  CREATE TABLE qr_codes (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    generations INTEGER NOT NULL,
    first_at INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, period, fingerprint)
  ) WITHOUT ROWID;
  CREATE INDEX qr_codes_by_recency ON qr_codes (account_id, period, last_at);
  `,
  // 2: portal sessions (server-side, so they can be revoked). The id is a digest of the cookie value.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    account_id TEXT,
    csrf_secret TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    pending_provider TEXT,
    pending_state TEXT,
    pending_nonce TEXT
  ) WITHOUT ROWID;
  CREATE INDEX sessions_by_account ON sessions (account_id);
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);
  `,
  // 3: the usage ledger, where production mode's rollup writes the Redis counters as absolute, versioned values.
  `
  CREATE TABLE usage_ledger (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    requests INTEGER NOT NULL,
    qrs INTEGER NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (account_id, period)
  ) WITHOUT ROWID;

  CREATE TABLE qr_ledger (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    type TEXT,
    payload TEXT,
    generations INTEGER NOT NULL,
    first_at INTEGER,
    last_at INTEGER,
    version INTEGER NOT NULL,
    PRIMARY KEY (account_id, period, fingerprint)
  ) WITHOUT ROWID;
  CREATE INDEX qr_ledger_by_recency ON qr_ledger (account_id, period, last_at);
  `,
  // 4: the burst log, one row per admitted reservation of the last second (sliding window per API key).
  `
  CREATE TABLE burst_log (
    burst_key TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX burst_log_by_key ON burst_log (burst_key, at);
  CREATE INDEX burst_log_by_time ON burst_log (at);
  `,
  // 5: batches (bulk renders), their items, and the refunds already given for failed or cancelled items.
  `
  CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    plan TEXT NOT NULL,
    status TEXT NOT NULL,
    total INTEGER NOT NULL,
    succeeded INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    cancelled INTEGER NOT NULL DEFAULT 0,
    period TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    webhook_url TEXT,
    idempotency_key TEXT,
    request_hash TEXT NOT NULL,
    UNIQUE (account_id, idempotency_key)
  );
  -- rowid is the arrival order: "newest first" stays exact for batches created in the same millisecond.
  CREATE INDEX batches_by_account ON batches (account_id);
  CREATE INDEX batches_by_finish ON batches (finished_at);

  CREATE TABLE batch_items (
    batch_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    name TEXT,
    file TEXT NOT NULL,
    type TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    spec TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    error_code TEXT,
    PRIMARY KEY (batch_id, idx)
  ) WITHOUT ROWID;

  CREATE TABLE batch_refunds (
    batch_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    PRIMARY KEY (batch_id, idx)
  ) WITHOUT ROWID;

  CREATE TABLE webhook_secrets (
    account_id TEXT PRIMARY KEY,
    secret TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 6: dynamic codes, and their scans: daily counts, the day's visitor digests (exact unique counts) and salts.
  `
  CREATE TABLE dynamic_codes (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    slug TEXT NOT NULL UNIQUE,
    target TEXT NOT NULL,
    name TEXT,
    status TEXT NOT NULL,
    disabled_reason TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER
  );
  CREATE INDEX dynamic_codes_by_account ON dynamic_codes (account_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL;

  CREATE TABLE scan_days (
    code_id TEXT NOT NULL,
    day TEXT NOT NULL,
    scans INTEGER NOT NULL,
    uniques INTEGER NOT NULL,
    devices TEXT NOT NULL,
    languages TEXT NOT NULL,
    PRIMARY KEY (code_id, day)
  ) WITHOUT ROWID;

  CREATE TABLE scan_visitors (
    code_id TEXT NOT NULL,
    day TEXT NOT NULL,
    visitor TEXT NOT NULL,
    PRIMARY KEY (code_id, day, visitor)
  ) WITHOUT ROWID;
  CREATE INDEX scan_visitors_by_day ON scan_visitors (day);

  CREATE TABLE scan_salts (
    day TEXT PRIMARY KEY,
    salt TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 7: uploaded logos, re-encoded PNG blobs per account.
  `
  CREATE TABLE logos (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    png BLOB NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    digest TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX logos_by_account ON logos (account_id, created_at);
  `,
  // 8: a finished batch's webhook delivery, kept with the batch so a restart resumes it (state: due, delivered,
  // abandoned).
  `
  ALTER TABLE batches ADD COLUMN webhook_state TEXT;
  ALTER TABLE batches ADD COLUMN webhook_attempts INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE batches ADD COLUMN webhook_next_at INTEGER;
  CREATE INDEX batches_webhooks_due ON batches (webhook_next_at) WHERE webhook_state = 'due';
  `,
  // 9: the burst log as one B-tree, a row per key and millisecond (it was a row per request in a table with two
  // indexes: three trees written per request). It holds about the last second only, so nothing is carried over.
  `
  DROP TABLE burst_log;
  CREATE TABLE burst_log (
    burst_key TEXT NOT NULL,
    at INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (burst_key, at)
  ) WITHOUT ROWID;
  `,
  // 10: signing keys for signed image URLs; the secret sealed (AES-GCM under a key derived from the operator's secret).
  `
  CREATE TABLE signing_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    sealed_secret TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX signing_keys_by_account ON signing_keys (account_id, created_at);
  `,
  // 11: a dynamic code's campaign options (rules, expiry, scan limit, query forwarding, UTM, password hash) as JSON,
  // and the scans let through to the target of codes with a scan limit.
  `
  ALTER TABLE dynamic_codes ADD COLUMN routing TEXT;
  CREATE TABLE code_scan_allowance (
    code_id TEXT PRIMARY KEY,
    taken INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE password_guesses (
    guess_key TEXT PRIMARY KEY,
    window_ends INTEGER NOT NULL,
    guesses INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 12: why a batch's last webhook attempt was not delivered, for the batch view.
  `
  ALTER TABLE batches ADD COLUMN webhook_error TEXT;
  `,
  // 13: billing (Stripe): the account's customer, subscription and its state, and the webhook events already applied.
  `
  ALTER TABLE accounts ADD COLUMN billing_customer_id TEXT;
  ALTER TABLE accounts ADD COLUMN billing_subscription_id TEXT;
  ALTER TABLE accounts ADD COLUMN billing_status TEXT;
  ALTER TABLE accounts ADD COLUMN billing_period_end INTEGER;
  ALTER TABLE accounts ADD COLUMN billing_updated_at INTEGER;
  CREATE INDEX accounts_by_billing_customer ON accounts (billing_customer_id) WHERE billing_customer_id IS NOT NULL;
  CREATE TABLE billing_events (
    id TEXT PRIMARY KEY,
    received_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX billing_events_by_age ON billing_events (received_at);
  `,
  // 14: scan webhooks (per account), and the scans waiting for them, counted by the scan recorder in its own
  // transaction.
  `
  CREATE TABLE scan_webhooks (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX scan_webhooks_by_account ON scan_webhooks (account_id, created_at);
  CREATE TABLE scan_events_pending (
    account_id TEXT NOT NULL,
    code_id TEXT NOT NULL,
    scans INTEGER NOT NULL,
    devices TEXT NOT NULL,
    PRIMARY KEY (account_id, code_id)
  ) WITHOUT ROWID;
  `,
  // 15: saved designs (rendering and branding options as JSON), per account.
  `
  CREATE TABLE designs (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    options TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX designs_by_account ON designs (account_id, created_at);
  `,
  // 16: a batch item that made a dynamic code names it (manifest.csv's codeId; its shortUrl is the item's payload).
  `
  ALTER TABLE batch_items ADD COLUMN code_id TEXT;
  `,
  // 17: scan webhooks' outbox: the scans fanned out to each endpoint (sealed = 1: in its message being delivered), and
  // the message.
  `
  CREATE TABLE scan_webhook_outbox (
    endpoint_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    since INTEGER NOT NULL,
    message_id TEXT,
    message_from INTEGER,
    message_to INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER
  );
  CREATE TABLE scan_webhook_scans (
    endpoint_id TEXT NOT NULL,
    sealed INTEGER NOT NULL,
    code_id TEXT NOT NULL,
    scans INTEGER NOT NULL,
    devices TEXT NOT NULL,
    PRIMARY KEY (endpoint_id, sealed, code_id)
  ) WITHOUT ROWID;
  `,
  // 18: custom domains (hostname unique across accounts) and the vanity slugs codes hold on them.
  `
  CREATE TABLE custom_domains (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    hostname TEXT NOT NULL UNIQUE,
    token TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    verified_at INTEGER,
    checked_at INTEGER,
    check_problem TEXT
  );
  CREATE INDEX custom_domains_by_account ON custom_domains (account_id, created_at);
  CREATE INDEX custom_domains_pending ON custom_domains (coalesce(checked_at, 0)) WHERE status = 'pending';
  ALTER TABLE dynamic_codes ADD COLUMN domain_id TEXT;
  ALTER TABLE dynamic_codes ADD COLUMN vanity_host TEXT;
  ALTER TABLE dynamic_codes ADD COLUMN vanity_slug TEXT;
  CREATE UNIQUE INDEX dynamic_codes_by_vanity ON dynamic_codes (vanity_host, vanity_slug) WHERE vanity_slug IS NOT NULL;
  CREATE INDEX dynamic_codes_by_domain ON dynamic_codes (domain_id) WHERE domain_id IS NOT NULL;
  `,
  // 19: each code's all-time scans, kept equal to the sum of its scan days by triggers (in the writer's transaction).
  `
  ALTER TABLE dynamic_codes ADD COLUMN scans INTEGER NOT NULL DEFAULT 0;
  UPDATE dynamic_codes SET scans = (SELECT coalesce(sum(scans), 0) FROM scan_days WHERE code_id = dynamic_codes.id);
  CREATE INDEX dynamic_codes_by_scans ON dynamic_codes (account_id, scans DESC, id DESC) WHERE deleted_at IS NULL;
  CREATE TRIGGER scan_days_count_new AFTER INSERT ON scan_days
  BEGIN
    UPDATE dynamic_codes SET scans = scans + NEW.scans WHERE id = NEW.code_id;
  END;
  CREATE TRIGGER scan_days_count_change AFTER UPDATE OF scans ON scan_days
  BEGIN
    UPDATE dynamic_codes SET scans = scans + NEW.scans - OLD.scans WHERE id = NEW.code_id;
  END;
  CREATE TRIGGER scan_days_count_gone AFTER DELETE ON scan_days
  BEGIN
    UPDATE dynamic_codes SET scans = scans - OLD.scans WHERE id = OLD.code_id;
  END;
  `,
  // 20: a day's scans per weighted-split arm, as a JSON object like devices.
  `
  ALTER TABLE scan_days ADD COLUMN arms TEXT NOT NULL DEFAULT '{}';
  `,
  // 21: an API key's scopes (JSON list; NULL: every scope), its expiry and who made it (JSON actor).
  `
  ALTER TABLE api_keys ADD COLUMN scopes TEXT;
  ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
  ALTER TABLE api_keys ADD COLUMN created_by TEXT;
  `,
  // 22: a rotated webhook secret keeps signing beside the new one until previous_until (ms).
  `
  ALTER TABLE webhook_secrets ADD COLUMN previous_secret TEXT;
  ALTER TABLE webhook_secrets ADD COLUMN previous_until INTEGER;
  `,
  // 23: a code-day's bots (counted apart), countries, cities and hourly counts (JSON objects).
  `
  ALTER TABLE scan_days ADD COLUMN bots INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE scan_days ADD COLUMN countries TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE scan_days ADD COLUMN cities TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE scan_days ADD COLUMN hours TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE scan_days ADD COLUMN hour_uniques TEXT NOT NULL DEFAULT '{}';
  `,
  // 24: the audit log, append-only per account; expires_at is when the retention sweep may drop an entry.
  `
  CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_label TEXT NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    ip TEXT,
    user_agent TEXT,
    changes TEXT NOT NULL,
    expires_at INTEGER
  );
  CREATE INDEX audit_log_by_account ON audit_log (account_id, at DESC, id DESC);
  CREATE INDEX audit_log_by_expiry ON audit_log (expires_at) WHERE expires_at IS NOT NULL;
  `,
  // 25: members (identities acting in an account, with a role), pending invitations, and the session's account in use.
  `
  CREATE TABLE members (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    identity_provider TEXT NOT NULL,
    identity_subject TEXT NOT NULL,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    joined_at INTEGER NOT NULL,
    UNIQUE (account_id, identity_provider, identity_subject)
  );
  CREATE INDEX members_by_identity ON members (identity_provider, identity_subject, joined_at);
  CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    invited_by TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX invitations_by_account ON invitations (account_id, created_at);
  ALTER TABLE sessions ADD COLUMN active_account_id TEXT;
  `,
  // 26: an account's scan privacy (NULL: the default, country).
  `
  ALTER TABLE accounts ADD COLUMN scan_privacy TEXT;
  `,
  // 27: logos have a name people pick them by.
  `
  ALTER TABLE logos ADD COLUMN name TEXT NOT NULL DEFAULT 'Untitled logo';
  `,
];

/**
 * Brings the schema to `target` (default: the newest); upgrade tests stop earlier to write rows in a past release's
 * shape.
 */
export function migrate(db: SqliteDatabase, target = MIGRATIONS.length): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < Math.min(target, MIGRATIONS.length); version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}

/** The embedded database's file in a data directory (backups copy it; restore puts one back). */
export function databaseFile(dataDir: string): string {
  return join(dataDir, 'qr-manager.db');
}

/** `:memory:` gives a private database (tests); otherwise the file `qr-manager.db` in `dataDir`. */
export function openDatabase(dataDir: string | ':memory:'): SqliteDatabase {
  let path = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    path = databaseFile(dataDir);
  }
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // WAL + NORMAL: durable across process crashes, fast commits
  db.pragma('busy_timeout = 5000'); // other processes (the CLI, a second instance) may hold the write lock
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}
