// Hash tags of the key layout: per account, per code, and one bucket per cluster slot beside the accounts hashed there.
import calculateSlot from 'cluster-key-slot';
import type { ChainableCommander } from 'ioredis';
import { Cluster } from 'ioredis';
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';

/** Redis Cluster's fixed number of slots: the buckets that hold what spans accounts are one per slot. */
export const SLOT_COUNT = 16_384;

/** Every key of one account carries this tag, so each of its scripts touches one slot. */
export function accountTag(accountId: string): string {
  return `{a:${accountId}}`;
}

/** The tag of a key used alone, per dynamic code. */
export function codeTag(codeId: string): string {
  return `{c:${codeId}}`;
}

let bucketTags: string[] | undefined;

/** For each slot, the shortest `b<n>` hashing to it: computed once (about 170k CRC16s, a few ms). */
function tagsBySlot(): string[] {
  if (bucketTags) return bucketTags;
  const tags = new Array<string>(SLOT_COUNT);
  let found = 0;
  for (let n = 0; found < SLOT_COUNT && n < 10_000_000; n++) {
    const tag = `b${n}`;
    const slot = calculateSlot(tag);
    if (tags[slot] === undefined) {
      tags[slot] = `{${tag}}`;
      found++;
    }
  }
  bucketTags = tags;
  return tags;
}

/** The tag of the bucket of the slot an account's keys hash to: a script may write both in one step. */
export function bucketTagOf(accountId: string): string {
  return tagsBySlot()[calculateSlot(`a:${accountId}`)]!;
}

/** The bucket tags grouped as the client can pipeline them: all of them on one Redis, per master on a cluster. */
function bucketGroups(client: RedisClient): string[][] {
  const tags = tagsBySlot();
  if (!(client instanceof Cluster)) return [tags];
  const groups = new Map<string, string[]>();
  for (let slot = 0; slot < SLOT_COUNT; slot++) {
    const nodes = client.slots[slot];
    if (!nodes || nodes.length === 0) throw new Error(`CLUSTERDOWN slot ${slot} is not served`);
    const owner = nodes.join(',');
    let group = groups.get(owner);
    if (!group) groups.set(owner, (group = []));
    group.push(tags[slot]!);
  }
  return [...groups.values()];
}

// KEYS, ARGV and answer at the top of src/adapters/redis/lua/slot-read-non-empty.lua.
const READ_NON_EMPTY = readLua('slot-read-non-empty');

/** A cluster's answers while slots move or a master fails over: the keys of a script may span owners for a moment. */
const SLOTS_MOVING = /MOVED|ASK|CROSSSLOT|TRYAGAIN|CLUSTERDOWN|non local key|Too many Cluster redirections/;

/** Bucket keys one Redis looks up in one EXISTS: an idle sweep is 64 lookups rather than 16,384. */
const LOOKUP_CHUNK = 256;

/** What to read of each bucket that holds something: up to `members` set members in all, or each whole hash. */
export type BucketRead = { members: number } | 'hash';

/**
 * The buckets whose key (`keyOf(tag)`) exists, each with its read: one script per master rather than a command per
 * bucket, so an idle sweep costs Redis a few key lookups, not 16,384 commands. While slots move between masters the
 * script is refused, and the buckets are read one command each instead.
 */
export async function nonEmptyBuckets(
  client: RedisClient,
  keyOf: (tag: string) => string,
  read: BucketRead,
): Promise<Array<{ tag: string; read: string[] }>> {
  const chunk = client instanceof Cluster ? '1' : String(LOOKUP_CHUNK);
  const args = read === 'hash' ? ['hash', '0', chunk] : ['members', String(read.members), chunk];
  try {
    const runs = bucketGroups(client).map(async (tags) => {
      const found = (await client.eval(READ_NON_EMPTY, 1, keyOf(tags[0]!), ...args, ...tags.map(keyOf))) as Array<
        number | string[]
      >;
      const buckets: Array<{ tag: string; read: string[] }> = [];
      for (let i = 0; i + 1 < found.length; i += 2)
        buckets.push({ tag: tags[(found[i] as number) - 1]!, read: found[i + 1] as string[] });
      return buckets;
    });
    return (await Promise.all(runs)).flat();
  } catch (error) {
    if (!SLOTS_MOVING.test(String(error))) throw error;
    const buckets = await eachBucket(client, (pipeline, tag) =>
      read === 'hash' ? pipeline.call('HGETALL', keyOf(tag)) : pipeline.srandmember(keyOf(tag), read.members),
    );
    return buckets
      .map(({ tag, replies }) => ({ tag, read: replies[0] as string[] }))
      .filter((bucket) => bucket.read.length > 0);
  }
}

/** A flat HGETALL reply ([field, value, …]) as an object. */
export function hashOf(flat: readonly string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]!] = flat[i + 1]!;
  return hash;
}

/**
 * Buckets per pipeline: a pipeline's commands must answer within the client's command timeout (1 s) on a busy server.
 */
const BUCKETS_PER_PIPELINE = 1_024;

/**
 * Queues `command` for every bucket (pipelines of at most 1024 buckets, one master's after another's in parallel), runs
 * them and answers, per bucket, the replies of the commands it queued. The first failure is thrown.
 */
export async function eachBucket(
  client: RedisClient,
  command: (pipeline: ChainableCommander, tag: string) => void,
): Promise<Array<{ tag: string; replies: unknown[] }>> {
  const runs = bucketGroups(client).map(async (group) => {
    const answers: Array<{ tag: string; replies: unknown[] }> = [];
    for (let from = 0; from < group.length; from += BUCKETS_PER_PIPELINE) {
      const tags = group.slice(from, from + BUCKETS_PER_PIPELINE);
      const pipeline = client.pipeline();
      const counts: number[] = [];
      for (const tag of tags) {
        const before = pipeline.length;
        command(pipeline, tag);
        counts.push(pipeline.length - before);
      }
      const results = (await pipeline.exec()) ?? [];
      let at = 0;
      tags.forEach((tag, i) => {
        const replies = results.slice(at, at + counts[i]!).map(([error, value]) => {
          if (error) throw error;
          return value;
        });
        at += counts[i]!;
        answers.push({ tag, replies });
      });
    }
    return answers;
  });
  return (await Promise.all(runs)).flat();
}
