// Port: where the API notes when each key was used, off the request path, for a job to write to the KeyStore.
export interface LastUsedEntry {
  keyId: string;
  at: Date;
}

export interface LastUsedBatch {
  entries: LastUsedEntry[];
  /** The entries are written: forget them, except a key recorded again since with a later time. */
  commit(): Promise<void>;
}

/**
 * Contract (test/contracts/last-used-log.contract.ts):
 * - `record` never waits and never throws (it runs on every request);
 * - `take` returns the latest time recorded per key: this process's records, and those other processes
 *   sharing the log have handed over (each does when it takes, and periodically);
 * - after `commit` those entries are not taken again, but a later time recorded meanwhile is;
 * - a batch never committed (the write failed) is taken again.
 */
export interface LastUsedLog {
  record(keyId: string, at: Date): void;
  take(limit: number): Promise<LastUsedBatch>;
}
