// Runs the SessionStore contract against SQLite and against a real redis-server started for this file.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { RedisSessionStore } from '../../src/adapters/redis/session-store.redis.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { sessionStoreContract } from './session-store.contract.js';

const opened: StoreAdapters[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

sessionStoreContract('sqlite', () => {
  const stores = createSqliteStores(':memory:');
  opened.push(stores);
  return stores.sessions;
});

let redisServer: RedisServer | undefined;
let client: Redis | undefined;
beforeAll(async () => {
  redisServer = await startRedisServer();
  client = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  client?.disconnect();
  await redisServer?.destroy();
});

// Every case gets its own key prefix, so cases never see each other's keys.
sessionStoreContract('redis', () => new RedisSessionStore(client!, { keyPrefix: `test:${randomUUID()}:` }));
