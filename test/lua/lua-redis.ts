// A real redis-server for the Lua script suites, and one script run alone on it with the KEYS and ARGV it is given.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import {
  closeRedisClient,
  createRedisClient,
  settleConnection,
  type RedisClient,
} from '../../src/adapters/redis/connection.js';
import { readLua } from '../../src/adapters/redis/lua-script.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

export interface LuaRedis {
  client(): RedisClient;
  /** EVAL of `src/adapters/redis/lua/<file>.lua`, nothing else loaded. */
  run(file: string, keys: string[], args: Array<string | number>): Promise<unknown>;
  /** A fresh key prefix with one hash tag, so a case's keys share a slot and no other case's. */
  prefix(): string;
}

export function useLuaRedis(): LuaRedis {
  let server: RedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    server = await startRedisServer();
    client = createRedisClient(server.url, { name: 'lua-tests' });
    await settleConnection(client);
  });
  afterAll(async () => {
    await closeRedisClient(client);
    await server.destroy();
  });
  return {
    client: () => client,
    run: (file, keys, args) => client.eval(readLua(file), keys.length, ...keys, ...args),
    prefix: () => `lua:{${randomUUID()}}:`,
  };
}
