// The embedded database's checkpoints run on a thread: the API's connection never copies the log back, and the log
// still stays bounded.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SILENT_LOG } from '../../src/adapters/adapter-log.js';
import { databaseFile, openDatabase, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { WalCheckpointer } from '../../src/adapters/sqlite/wal-checkpointer.js';
import { waitFor } from '../helpers/wait.js';

const PAGE = 4096;
/** One write of this many pages: past SQLite's own checkpoint threshold (1,000 pages) by half. */
const PAGES_PER_WRITE = 1500;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Page-sized rows, one transaction each, as a busy API's commits come. */
function writePages(db: SqliteDatabase, pages: number, from: number): void {
  const insert = db.prepare('INSERT INTO scratch (id, body) VALUES (?, randomblob(4000))');
  for (let i = 0; i < pages; i++) insert.run(from + i);
}

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/**
 * Whether every frame in the log has been copied back, read from the shared-memory index the way SQLite's
 * connections read it (https://www.sqlite.org/walformat.html): mxFrame at byte 16, nBackfill at byte 96.
 */
function fullyCheckpointed(shm: string): boolean {
  const index = readFileSync(shm);
  const lastFrame = index.readUInt32LE(16);
  return lastFrame > 0 && index.readUInt32LE(96) === lastFrame;
}

describe('WalCheckpointer', () => {
  it('keeps checkpoints off the API connection, and the log bounded by the thread', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qrm-wal-'));
    const db = openDatabase(dir);
    db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, body BLOB)');
    const checkpointer = new WalCheckpointer(db, SILENT_LOG, 50);
    const file = databaseFile(dir);
    const wal = `${file}-wal`;

    writePages(db, PAGES_PER_WRITE, 0);
    // The API connection never checkpoints: SQLite alone would have copied the first 1,000 pages back during these
    // commits.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const logAfterFirstWrite = sizeOf(wal);
    expect(logAfterFirstWrite).toBeGreaterThan(PAGES_PER_WRITE * PAGE);
    // The thread copies it all into the database file on its own.
    await waitFor('the thread to checkpoint the first write', () => fullyCheckpointed(`${file}-shm`), {
      timeoutMs: 10_000,
    });
    // Everything was copied back, so the next write of the same size starts the log over instead of doubling it
    // (a few pages more: the table's inner pages grew).
    writePages(db, PAGES_PER_WRITE, PAGES_PER_WRITE);
    expect(sizeOf(wal)).toBeLessThan(logAfterFirstWrite * 1.1);

    await checkpointer.close();
    db.close();
    // The last connection's close copies the rest back and removes the log; every row is there.
    expect(existsSync(wal)).toBe(false);
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT count(*) AS n FROM scratch').get()).toEqual({ n: 2 * PAGES_PER_WRITE });
    reader.close();
  });
});
