// Moves SQLite's WAL checkpoints off the event loop: a thread of its own copies the log back into the database file.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { AdapterLog } from '../adapter-log.js';
import type { SqliteDatabase } from './database.js';

/**
 * The thread, as plain CommonJS so it runs the same under tsx and from dist. A PASSIVE checkpoint copies
 * what it can without waiting for any lock, so it never holds up the API's writes.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
const tick = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(tick);
  db.close();
  parentPort.close();
});
`;

/** Often enough that the log stays a few hundred pages at full load; each run costs the thread, not the API. */
const DEFAULT_INTERVAL_MS = 250;
/** SQLite's own default, put back if the thread stops: the log must never grow without bound. */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * SQLite checkpoints on the committing connection by default: past 1,000 WAL pages one COMMIT also copies
 * them back into the database file and syncs it, on the event loop (docs/decisions/wal-checkpoint-thread.md).
 * Here the API's connection never checkpoints; a thread does it every 250 ms.
 */
export class WalCheckpointer {
  readonly #worker: Worker;
  #stopping = false;

  constructor(db: SqliteDatabase, log: AdapterLog, intervalMs = DEFAULT_INTERVAL_MS) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    db.pragma('wal_autocheckpoint = 0');
    this.#worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { driver, file: db.name, intervalMs } });
    this.#worker.unref(); // never what keeps the process alive
    const fallBack = (err?: unknown) => {
      if (this.#stopping || !db.open) return;
      log.warn({ err }, 'the SQLite checkpoint thread stopped; the API connection checkpoints itself again');
      db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    };
    this.#worker.once('error', fallBack);
    this.#worker.once('exit', () => fallBack());
  }

  /** Stops the thread (its last checkpoint done); closing the API's connection afterwards checkpoints the rest. */
  async close(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.ref(); // held open until it has stopped: a process closing its stores waits for it
    this.#worker.postMessage('stop');
    await exited;
  }
}
