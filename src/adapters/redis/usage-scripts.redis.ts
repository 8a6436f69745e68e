// The Lua scripts of Redis metering (lua/usage-*.lua): each is one atomic round trip (check-and-count, refund, reads,
// rollup snapshot, acknowledge).
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection.js';
import { readLua, type LuaScript } from './lua-script.js';

/** Each script's KEYS, ARGV and answer are written at the top of its file in lua/. */
const RESERVE: LuaScript = { name: 'qrmUsageReserve', numberOfKeys: 9, lua: readLua('usage-reserve') };
const ADMIT_BURST: LuaScript = { name: 'qrmUsageAdmitBurst', numberOfKeys: 1, lua: readLua('usage-admit-burst') };
const RESERVE_REQUEST: LuaScript = {
  name: 'qrmUsageReserveRequest',
  numberOfKeys: 6,
  lua: readLua('usage-reserve-request'),
};
const REFUND_REQUEST: LuaScript = {
  name: 'qrmUsageRefundRequest',
  numberOfKeys: 3,
  lua: readLua('usage-refund-request'),
};
const REFUND: LuaScript = { name: 'qrmUsageRefund', numberOfKeys: 7, lua: readLua('usage-refund') };
const USAGE: LuaScript = { name: 'qrmUsageRead', numberOfKeys: 2, lua: readLua('usage-read') };
const QRS: LuaScript = { name: 'qrmUsageQrs', numberOfKeys: 4, lua: readLua('usage-qrs') };
const SNAPSHOT: LuaScript = { name: 'qrmUsageSnapshot', numberOfKeys: 5, lua: readLua('usage-snapshot') };
const ACKNOWLEDGE: LuaScript = { name: 'qrmUsageAcknowledge', numberOfKeys: 3, lua: readLua('usage-acknowledge') };
const RESERVE_BATCH: LuaScript = { name: 'qrmUsageReserveBatch', numberOfKeys: 7, lua: readLua('usage-reserve-batch') };
const REFUND_BATCH_ITEMS: LuaScript = {
  name: 'qrmUsageRefundBatchItems',
  numberOfKeys: 7,
  lua: readLua('usage-refund-batch-items'),
};

const SCRIPTS = [
  RESERVE,
  ADMIT_BURST,
  RESERVE_REQUEST,
  REFUND_REQUEST,
  REFUND,
  USAGE,
  QRS,
  SNAPSHOT,
  ACKNOWLEDGE,
  RESERVE_BATCH,
  REFUND_BATCH_ITEMS,
] as const;

type Arg = string | number;

/**
 * The scripts, loaded on a client (EVALSHA, falling back to EVAL after a restart) and callable on it or on its
 * pipelines.
 */
export class UsageScripts {
  readonly #client: RedisClient;

  constructor(client: RedisClient) {
    this.#client = client;
    for (const script of SCRIPTS)
      client.defineCommand(script.name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }

  #call(target: RedisClient | ChainableCommander, script: LuaScript, keys: string[], args: Arg[]): unknown {
    if (keys.length !== script.numberOfKeys)
      throw new Error(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
    const method = (target as unknown as Record<string, (...a: Arg[]) => unknown>)[script.name]!;
    return method.call(target, ...keys, ...args);
  }

  reserve(keys: string[], args: Arg[]): Promise<[number, string, number, number, number]> {
    return this.#call(this.#client, RESERVE, keys, args) as Promise<[number, string, number, number, number]>;
  }

  admitBurst(keys: string[], args: Arg[]): Promise<[number, number]> {
    return this.#call(this.#client, ADMIT_BURST, keys, args) as Promise<[number, number]>;
  }

  reserveRequest(keys: string[], args: Arg[]): Promise<[number, string, number, number, number]> {
    return this.#call(this.#client, RESERVE_REQUEST, keys, args) as Promise<[number, string, number, number, number]>;
  }

  refundRequest(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, REFUND_REQUEST, keys, args) as Promise<number>;
  }

  refund(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, REFUND, keys, args) as Promise<number>;
  }

  reserveBatch(keys: string[], args: Arg[]): Promise<[number, string, number, number, number, number]> {
    return this.#call(this.#client, RESERVE_BATCH, keys, args) as Promise<
      [number, string, number, number, number, number]
    >;
  }

  refundBatchItems(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, REFUND_BATCH_ITEMS, keys, args) as Promise<number>;
  }

  usage(keys: string[]): Promise<[number, number] | null> {
    return this.#call(this.#client, USAGE, keys, []) as Promise<[number, number] | null>;
  }

  qrs(keys: string[], limit: number): Promise<string[] | null> {
    return this.#call(this.#client, QRS, keys, [limit]) as Promise<string[] | null>;
  }

  /** One account's snapshot (its keys share a slot); many are sent together by the caller. */
  snapshotOf(keys: string[], maxQrs: number): Promise<unknown> {
    return this.#call(this.#client, SNAPSHOT, keys, [maxQrs]) as Promise<unknown>;
  }

  acknowledgeOf(keys: string[], args: Arg[]): Promise<number> {
    return this.#call(this.#client, ACKNOWLEDGE, keys, args) as Promise<number>;
  }
}
