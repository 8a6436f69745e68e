// The MongoDB connection of production mode: its own mongoose connection (never the global one), failing fast when the
// server is away.
import mongoose, { type Connection } from 'mongoose';

export interface MongoConnectionOptions {
  /** Database name, overriding the one in the URL (tests use a fresh one each run). */
  dbName?: string;
}

/** Opens and waits for the first connection; throws when no server answers within a few seconds. */
export async function openMongoConnection(url: string, options: MongoConnectionOptions = {}): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    ...(options.dbName ? { dbName: options.dbName } : {}),
    // No buffering: while the server is away an operation fails at once (503) instead of waiting in a queue.
    bufferCommands: false,
    autoIndex: false,
    serverSelectionTimeoutMS: 3_000,
    connectTimeoutMS: 3_000,
    socketTimeoutMS: 10_000,
    maxPoolSize: 20,
  });
  try {
    await connection.asPromise();
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
  return connection;
}

const OUTAGE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

// Server-side codes meaning "not now" (stepping down, shutting down, unreachable), not "wrong".
const OUTAGE_CODES = new Set([6, 7, 89, 91, 189, 10107, 11600, 11602, 13435, 13436, 9001]);

/**
 * True for failures of MongoDB itself (unreachable, stepping down, shutting down); false for rule violations and bugs.
 */
export function isMongoOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (OUTAGE_NAMES.has(error.name)) return true;
  const labelled = error as Error & { hasErrorLabel?: (label: string) => boolean; code?: unknown };
  if (
    typeof labelled.hasErrorLabel === 'function' &&
    (labelled.hasErrorLabel('RetryableWriteError') || labelled.hasErrorLabel('ResetPool'))
  )
    return true;
  if (typeof labelled.code === 'number' && OUTAGE_CODES.has(labelled.code)) return true;
  // With buffering off, mongoose refuses operations on a closed or not yet open connection with a plain MongooseError.
  return (
    error.name === 'MongooseError' &&
    /initial connection is complete|Connection was force closed|Client must be connected/i.test(error.message)
  );
}

/** True when a write broke a unique index. */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
