// Online backup and offline restore of the embedded SQLite database (better-sqlite3's backup API), for `qrm backup` and
// `qrm restore`.
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { databaseFile } from './database.js';

export class BackupError extends Error {
  override name = 'BackupError';
}

export interface BackupResult {
  file: string;
  bytes: number;
  accounts: number;
}

/** `ok`, or what SQLite's integrity check found (first lines). */
function integrityOf(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows
      .map((row) => row.integrity_check)
      .slice(0, 5)
      .join('; ');
  } finally {
    db.close();
  }
}

function accountCount(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasAccounts = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'accounts'").get();
    if (!hasAccounts) throw new BackupError(`${file} is not a QR Manager database (it has no accounts table)`);
    return (db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** A sibling path for work in progress: renamed over the target only once complete and checked. */
function partialPath(target: string): string {
  return join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
}

/**
 * A consistent copy of the database while servers keep serving: SQLite's online backup copies a
 * snapshot (WAL readers block no writer), restarting by itself if a write lands mid-copy; once the
 * first pages are across, the rest goes in one step so a busy server cannot keep restarting it.
 * The copy is integrity-checked, then renamed into place (a half-written backup never has the name).
 */
export async function backupDatabase(dataDir: string, to: string): Promise<BackupResult> {
  const source = databaseFile(dataDir);
  if (!existsSync(source)) throw new BackupError(`no database at ${resolve(source)} (QR_DATA_DIR=${dataDir})`);
  const target = resolve(to);
  const partial = partialPath(target);
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(partial, { progress: ({ totalPages }) => Math.max(100, totalPages) });
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
  const integrity = integrityOf(partial);
  if (integrity !== 'ok') {
    rmSync(partial, { force: true });
    throw new BackupError(`the copy failed its integrity check (${integrity}); nothing was written to ${target}`);
  }
  const accounts = accountCount(partial);
  renameSync(partial, target);
  return { file: target, bytes: statSync(target).size, accounts };
}

export interface RestoreResult extends BackupResult {
  /** Where the database that was there before now is (kept, never deleted), if there was one. */
  previous: string | undefined;
}

/**
 * True when some process (a server, a worker, another qrm) has the database open: in WAL mode every open connection
 * holds a shared lock.
 */
function inUse(file: string): boolean {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw error;
  } finally {
    db.close(); // the last connection out checkpoints the WAL into the file and removes it
  }
}

/**
 * Puts a backup back as the database, refusing while any process holds the current one (stop the
 * server and workers first). The backup is checked before anything moves; the database it replaces
 * is kept beside it as `qr-manager.db.before-restore-<time>`.
 */
export async function restoreDatabase(dataDir: string, from: string, now: Date = new Date()): Promise<RestoreResult> {
  const backup = resolve(from);
  if (!existsSync(backup)) throw new BackupError(`no backup at ${backup}`);
  const integrity = integrityOf(backup);
  if (integrity !== 'ok')
    throw new BackupError(`${backup} failed its integrity check (${integrity}); nothing was changed`);
  const accounts = accountCount(backup);
  const target = resolve(databaseFile(dataDir));
  if (existsSync(target) && inUse(target)) {
    throw new BackupError(
      `${target} is open in another process (a server, a worker or another qrm): stop them, then run the restore again`,
    );
  }
  // Copied next to the target first, so the final step is a rename on the same file system (a new machine has no data
  // directory yet).
  mkdirSync(dirname(target), { recursive: true });
  const partial = partialPath(target);
  const source = new Database(backup, { readonly: true, fileMustExist: true });
  try {
    await source.backup(partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
  let previous: string | undefined;
  if (existsSync(target)) {
    previous = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, previous);
  }
  // A WAL left beside the old file would be replayed into the restored one: none may remain.
  rmSync(`${target}-wal`, { force: true });
  rmSync(`${target}-shm`, { force: true });
  renameSync(partial, target);
  return { file: target, bytes: statSync(target).size, accounts, previous };
}
