// The Lua scripts of Redis metering (lua/usage-*.lua): each is one atomic round trip (check-and-count, refund, reads,
// rollup snapshot, acknowledge).
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection.js';
import { readLua, type LuaScript } from './lua-script.js';

/** `lua/<file>.lua` as the command `qrm<File in camel case>`; its KEYS, ARGV and answer are written at its top. */
function usageScript(file: string, numberOfKeys: number): LuaScript {
  const words = file.split('-').map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return { name: `qrm${words.join('')}`, numberOfKeys, lua: readLua(file) };
}

const RESERVE = usageScript('usage-reserve', 9);
const ADMIT_BURST = usageScript('usage-admit-burst', 1);
const REFUND_REQUEST = usageScript('usage-refund-request', 3);
const REFUND = usageScript('usage-refund', 7);
const USAGE = usageScript('usage-read', 2);
const QRS = usageScript('usage-qrs', 4);
const SNAPSHOT = usageScript('usage-snapshot', 5);
const ACKNOWLEDGE = usageScript('usage-acknowledge', 3);
const RESERVE_BATCH = usageScript('usage-reserve-batch', 7);
const REFUND_BATCH_ITEMS = usageScript('usage-refund-batch-items', 7);

const SCRIPTS = [
  RESERVE,
  ADMIT_BURST,
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

  /** A request with or without a code (fingerprint ''). */
  reserve(keys: string[], args: Arg[]): Promise<[number, string, number, number, number]> {
    return this.#call(this.#client, RESERVE, keys, args) as Promise<[number, string, number, number, number]>;
  }

  admitBurst(keys: string[], args: Arg[]): Promise<[number, number]> {
    return this.#call(this.#client, ADMIT_BURST, keys, args) as Promise<[number, number]>;
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
