// ScanEventSource in Redis: the accounts' counted scans (written by the scan counter's script) fanned out to each
// endpoint's outbox and sealed into messages, each step one script.
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';
import { accountTag, bucketTagOf, hashOf, nonEmptyBuckets } from './slot-tags.js';
import type { CodeScans, ScanEventSource, ScanMessage } from '../../domain/ports/scan-webhooks.js';
import { DEVICE_CLASSES, type DeviceClass } from '../../domain/scan.js';
import { scanEventAccountsKey, scanEventsKey } from './scan-counter.redis.js';

// The scripts (src/adapters/redis/lua/): each file opens with its KEYS, ARGV and answer.
const FAN_OUT = readLua('scan-events-fan-out');
const SEAL = readLua('scan-events-seal');
const SETTLE = readLua('scan-events-settle');

type Commands = RedisClient & {
  qrmScanEventsFanOut(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number>;
  qrmScanEventsSeal(...keysThenArgs: Array<string | number>): Promise<[string[], string[]] | null>;
  qrmScanEventsSettle(...keysThenArgs: string[]): Promise<number>;
};

const DEVICES = new Set<string>(DEVICE_CLASSES);

/** A flat HGETALL of `code` → scans and `code|device` → n, per code. */
function codesOf(fields: readonly string[]): CodeScans[] {
  const codes = new Map<string, CodeScans>();
  const codeOf = (codeId: string) => {
    let code = codes.get(codeId);
    if (!code) codes.set(codeId, (code = { codeId, scans: 0, devices: {} }));
    return code;
  };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [codeId = '', device] = fields[i]!.split('|');
    const n = Number(fields[i + 1]);
    if (device === undefined) codeOf(codeId).scans = n;
    else if (DEVICES.has(device)) codeOf(codeId).devices[device as DeviceClass] = n;
  }
  return [...codes.values()].sort((a, b) => a.codeId.localeCompare(b.codeId));
}

export class RedisScanEventSource implements ScanEventSource {
  readonly #redis: Commands;
  readonly #prefix: string;
  /** Every outbox key starts with this (per slot bucket: busy; per account: waiting:, sealed:, message:, since:). */
  readonly #outbox: string;

  constructor(redis: RedisClient, options: { keyPrefix?: string } = {}) {
    redis.defineCommand('qrmScanEventsFanOut', { lua: FAN_OUT });
    redis.defineCommand('qrmScanEventsSeal', { numberOfKeys: 5, lua: SEAL });
    redis.defineCommand('qrmScanEventsSettle', { numberOfKeys: 2, lua: SETTLE });
    this.#redis = redis as Commands;
    this.#prefix = options.keyPrefix ?? 'qrm:';
    this.#outbox = `${this.#prefix}scan-webhooks:`;
  }

  #busy(bucketTag: string): string {
    return `${this.#outbox}${bucketTag}:busy`;
  }

  /** An endpoint's outbox keys, in its account's slot. */
  #endpoint(
    accountId: string,
    endpointId: string,
  ): { waiting: string; sealed: string; message: string; since: string } {
    const base = `${this.#outbox}${accountTag(accountId)}:`;
    return {
      waiting: `${base}waiting:${endpointId}`,
      sealed: `${base}sealed:${endpointId}`,
      message: `${base}message:${endpointId}`,
      since: `${base}since:${endpointId}`,
    };
  }

  async waitingAccounts(limit: number): Promise<string[]> {
    const buckets = await nonEmptyBuckets(this.#redis, (tag) => scanEventAccountsKey(this.#prefix, tag), {
      members: limit,
    });
    return buckets.flatMap(({ read }) => read).slice(0, limit);
  }

  async fanOut(accountId: string, endpointIds: readonly string[], at: Date): Promise<void> {
    const bucket = bucketTagOf(accountId);
    const keys = [
      scanEventAccountsKey(this.#prefix, bucket),
      scanEventsKey(this.#prefix, accountId),
      this.#busy(bucket),
    ];
    for (const endpointId of endpointIds) {
      const { waiting, since } = this.#endpoint(accountId, endpointId);
      keys.push(waiting, since);
    }
    await this.#redis.qrmScanEventsFanOut(keys.length, ...keys, accountId, at.getTime(), ...endpointIds);
  }

  async busyEndpoints(): Promise<Array<{ endpointId: string; accountId: string }>> {
    const buckets = await nonEmptyBuckets(this.#redis, (tag) => this.#busy(tag), 'hash');
    return buckets.flatMap(({ read }) =>
      Object.entries(hashOf(read)).map(([endpointId, accountId]) => ({ endpointId, accountId })),
    );
  }

  async seal(accountId: string, endpointId: string, messageId: string, at: Date): Promise<ScanMessage | undefined> {
    const k = this.#endpoint(accountId, endpointId);
    const sealed = await this.#redis.qrmScanEventsSeal(
      k.message,
      k.sealed,
      k.waiting,
      k.since,
      this.#busy(bucketTagOf(accountId)),
      endpointId,
      messageId,
      at.getTime(),
    );
    if (!sealed) return undefined;
    const [messageFields, scanFields] = sealed;
    const message = hashOf(messageFields);
    return {
      id: message.id!,
      from: new Date(Number(message.from)),
      to: new Date(Number(message.to)),
      codes: codesOf(scanFields),
      attempts: Number(message.attempts),
      nextAt: new Date(Number(message.nextAt)),
    };
  }

  async settle(accountId: string, endpointId: string, messageId: string, retryAt: Date | undefined): Promise<void> {
    const k = this.#endpoint(accountId, endpointId);
    await this.#redis.qrmScanEventsSettle(
      k.message,
      k.sealed,
      messageId,
      retryAt === undefined ? '' : String(retryAt.getTime()),
    );
  }

  async drop(accountId: string, endpointId: string): Promise<void> {
    const k = this.#endpoint(accountId, endpointId);
    await this.#redis
      .multi()
      .del(k.waiting, k.sealed, k.message, k.since)
      .hdel(this.#busy(bucketTagOf(accountId)), endpointId)
      .exec();
  }
}
