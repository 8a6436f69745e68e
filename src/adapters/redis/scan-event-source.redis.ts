// ScanEventSource in Redis: the accounts' counted scans (written by the scan counter's script) fanned out to each endpoint's outbox and sealed into messages, each step one script.
import type { Redis } from 'ioredis';
import type { CodeScans, ScanEventSource, ScanMessage } from '../../domain/ports/scan-webhooks.js';
import { DEVICE_CLASSES, type DeviceClass } from '../../domain/scan.js';
import { scanEventAccountsKey, scanEventsKey } from './scan-counter.redis.js';

/**
 * KEYS accounts set, the account's hash, the busy endpoints hash; ARGV account, at, outbox key prefix, endpoint ids…
 * Adds the account's fields (`code` → scans, `code|device` → n) to each endpoint's waiting hash, then forgets them.
 */
const FAN_OUT = `
local fields = redis.call('HGETALL', KEYS[2])
if #fields > 0 then
  for i = 4, #ARGV do
    local endpoint = ARGV[i]
    local waiting = ARGV[3] .. 'waiting:' .. endpoint
    for j = 1, #fields, 2 do redis.call('HINCRBY', waiting, fields[j], fields[j + 1]) end
    redis.call('HSETNX', KEYS[3], endpoint, ARGV[1])
    redis.call('SET', ARGV[3] .. 'since:' .. endpoint, ARGV[2], 'NX')
  end
end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[1], ARGV[1])
return #fields / 2
`;

/** ARGV outbox key prefix, endpoint, new message id, at. Answers [message fields, sealed fields], or nil (idle: forgotten). */
const SEAL = `
local p, endpoint, at = ARGV[1], ARGV[2], ARGV[4]
local message = p .. 'message:' .. endpoint
local sealed = p .. 'sealed:' .. endpoint
if redis.call('EXISTS', message) == 0 then
  local waiting = p .. 'waiting:' .. endpoint
  if redis.call('EXISTS', waiting) == 0 then
    redis.call('HDEL', p .. 'busy', endpoint)
    redis.call('DEL', p .. 'since:' .. endpoint)
    return false
  end
  redis.call('RENAME', waiting, sealed)
  local since = redis.call('GET', p .. 'since:' .. endpoint) or at
  redis.call('HSET', message, 'id', ARGV[3], 'from', since, 'to', at, 'attempts', 0, 'nextAt', at)
  redis.call('SET', p .. 'since:' .. endpoint, at)
end
return {redis.call('HGETALL', message), redis.call('HGETALL', sealed)}
`;

/** ARGV outbox key prefix, endpoint, message id, retryAt ('' when done). */
const SETTLE = `
local message = ARGV[1] .. 'message:' .. ARGV[2]
if redis.call('HGET', message, 'id') ~= ARGV[3] then return 0 end
if ARGV[4] ~= '' then
  redis.call('HINCRBY', message, 'attempts', 1)
  redis.call('HSET', message, 'nextAt', ARGV[4])
else
  redis.call('DEL', message, ARGV[1] .. 'sealed:' .. ARGV[2])
end
return 1
`;

type Commands = Redis & {
  qrmScanEventsFanOut(accounts: string, events: string, busy: string, accountId: string, at: number, prefix: string, ...endpoints: string[]): Promise<number>;
  qrmScanEventsSeal(prefix: string, endpointId: string, messageId: string, at: number): Promise<[string[], string[]] | null>;
  qrmScanEventsSettle(prefix: string, endpointId: string, messageId: string, retryAt: string): Promise<number>;
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
  /** Every outbox key starts with this (busy, waiting:, sealed:, message:, since:). */
  readonly #outbox: string;

  constructor(redis: Redis, options: { keyPrefix?: string } = {}) {
    redis.defineCommand('qrmScanEventsFanOut', { numberOfKeys: 3, lua: FAN_OUT });
    redis.defineCommand('qrmScanEventsSeal', { numberOfKeys: 0, lua: SEAL });
    redis.defineCommand('qrmScanEventsSettle', { numberOfKeys: 0, lua: SETTLE });
    this.#redis = redis as Commands;
    this.#prefix = options.keyPrefix ?? 'qrm:';
    this.#outbox = `${this.#prefix}scan-webhooks:`;
  }

  async waitingAccounts(limit: number): Promise<string[]> {
    return this.#redis.srandmember(scanEventAccountsKey(this.#prefix), limit);
  }

  async fanOut(accountId: string, endpointIds: readonly string[], at: Date): Promise<void> {
    await this.#redis.qrmScanEventsFanOut(
      scanEventAccountsKey(this.#prefix),
      scanEventsKey(this.#prefix, accountId),
      `${this.#outbox}busy`,
      accountId,
      at.getTime(),
      this.#outbox,
      ...endpointIds,
    );
  }

  async busyEndpoints(): Promise<Array<{ endpointId: string; accountId: string }>> {
    const busy = await this.#redis.hgetall(`${this.#outbox}busy`);
    return Object.entries(busy).map(([endpointId, accountId]) => ({ endpointId, accountId }));
  }

  async seal(endpointId: string, messageId: string, at: Date): Promise<ScanMessage | undefined> {
    const sealed = await this.#redis.qrmScanEventsSeal(this.#outbox, endpointId, messageId, at.getTime());
    if (!sealed) return undefined;
    const [messageFields, scanFields] = sealed;
    const message: Record<string, string> = {};
    for (let i = 0; i + 1 < messageFields.length; i += 2) message[messageFields[i]!] = messageFields[i + 1]!;
    return {
      id: message.id!,
      from: new Date(Number(message.from)),
      to: new Date(Number(message.to)),
      codes: codesOf(scanFields),
      attempts: Number(message.attempts),
      nextAt: new Date(Number(message.nextAt)),
    };
  }

  async settle(endpointId: string, messageId: string, retryAt: Date | undefined): Promise<void> {
    await this.#redis.qrmScanEventsSettle(this.#outbox, endpointId, messageId, retryAt === undefined ? '' : String(retryAt.getTime()));
  }

  async drop(endpointId: string): Promise<void> {
    const keys = ['waiting:', 'sealed:', 'message:', 'since:'].map((part) => `${this.#outbox}${part}${endpointId}`);
    await this.#redis
      .multi()
      .del(...keys)
      .hdel(`${this.#outbox}busy`, endpointId)
      .exec();
  }
}
