// The seal for signing-key secrets: derived from QR_KEY_SECRET, else SESSION_SECRET, else a random key kept in
// QR_DATA_DIR.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { SecretSeal } from '../domain/secret-seal.js';

const SEAL_FILE = 'signing-keys.secret';

/**
 * Every instance must derive the same key: an operator's secret does that wherever instances run. Without one, the
 * embedded default keeps a random key beside its database (instances sharing the data directory share it too);
 * an in-memory database (tests) gets one for the process.
 */
export function signingSealOf(config: Pick<Config, 'keyPepper' | 'sessionSecret' | 'dataDir'>): SecretSeal {
  const operatorSecret = config.keyPepper ?? config.sessionSecret;
  if (operatorSecret) return new SecretSeal(operatorSecret);
  if (config.dataDir === ':memory:') return new SecretSeal(randomBytes(32));
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, SEAL_FILE);
  try {
    // 'wx': of two instances starting together, one writes the key and the other reads it.
    writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return new SecretSeal(readFileSync(file, 'utf8').trim());
}
