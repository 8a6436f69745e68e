// Hash tags of the key layout: per account, per code, and one bucket per cluster slot beside the accounts hashed there.
import calculateSlot from 'cluster-key-slot';
import type { ChainableCommander } from 'ioredis';
import { Cluster } from 'ioredis';
import type { RedisClient } from './connection.js';

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

/** Buckets per pipeline: a pipeline's commands must answer within the client's command timeout (1 s) on a busy server. */
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
