// Runs the port contracts against the Redis adapters, on a real redis-server started for this file; every case has its
// own key prefix.
import type { RedisClient } from '../../src/adapters/redis/connection.js';
import { afterAll, beforeAll } from 'vitest';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { PlanChangePublishingAccountStore } from '../../src/adapters/account-store.plan-events.js';
import { closeRedisClient, createRedisClient, settleConnection } from '../../src/adapters/redis/connection.js';
import { RedisInvalidationBus } from '../../src/adapters/redis/invalidation-bus.redis.js';
import { CachedKeyStore } from '../../src/adapters/key-store.cached.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { CachedDynamicCodeStore } from '../../src/adapters/dynamic-code-store.cached.js';
import { accountStoreContract } from './account-store.contract.js';
import { dynamicCodeStoreContract } from './dynamic-code-store.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { casePrefix as prefix, redisAdapterContracts } from './redis-adapters.js';
import { signingKeyStoreContract } from './signing-key-store.contract.js';
import { CachedSigningKeyStore } from '../../src/adapters/signing-key-store.cached.js';

let server: RedisServer;
let client: RedisClient;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startRedisServer();
  client = createRedisClient(server.url, { name: 'contract-tests' });
  await settleConnection(client);
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await closeRedisClient(client);
  await server.destroy();
});

function sqlite(): StoreAdapters {
  const stores = createSqliteStores(':memory:');
  closers.push(() => stores.close());
  return stores;
}

function bus(keyPrefix: string): RedisInvalidationBus {
  const made = new RedisInvalidationBus(client, server.url, { keyPrefix });
  closers.push(() => made.close());
  return made;
}

redisAdapterContracts('redis', () => client, closers);

keyStoreContract('sqlite + redis credential cache', async () => {
  const stores = sqlite();
  return { accounts: stores.accounts, keys: new CachedKeyStore(stores.keys, bus(prefix())) };
});

signingKeyStoreContract('sqlite + redis signing-key cache', async () => {
  const stores = sqlite();
  return { accounts: stores.accounts, signingKeys: new CachedSigningKeyStore(stores.signingKeys, bus(prefix())) };
});

accountStoreContract(
  'sqlite + redis plan-change events',
  () => new PlanChangePublishingAccountStore(sqlite().accounts, bus(prefix())),
);

dynamicCodeStoreContract('sqlite + redis slug cache', async () => {
  const stores = createSqliteStores(':memory:', { cacheSlugs: false });
  closers.push(() => stores.close());
  return { accounts: stores.accounts, codes: new CachedDynamicCodeStore(stores.codes, bus(prefix())) };
});
