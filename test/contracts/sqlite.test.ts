// Runs every port contract against the SQLite adapters (the embedded default).
import { afterAll } from 'vitest';
import { createSqliteStores, type StoreAdapters } from '../../src/adapters/embedded.js';
import { accountStoreContract } from './account-store.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { usageMeterContract } from './usage-meter.contract.js';

const opened: StoreAdapters[] = [];
function fresh(): StoreAdapters {
  const stores = createSqliteStores(':memory:');
  opened.push(stores);
  return stores;
}
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

accountStoreContract('sqlite', () => fresh().accounts);
keyStoreContract('sqlite', async () => fresh());
usageMeterContract('sqlite', () => fresh().meter);
