// Cache invalidations over Redis pub/sub: a revocation, plan change or dynamic-code change on any instance reaches
// every other at once.
import type { Invalidation, InvalidationBus } from '../../domain/ports/invalidation-bus.js';
import { createRedisClient, type AdapterLog, type RedisClient, type RedisTarget } from './connection.js';

export interface RedisInvalidationBusOptions {
  keyPrefix?: string;
  log?: AdapterLog;
}

function parse(message: string): Invalidation | undefined {
  try {
    const value = JSON.parse(message) as Record<string, unknown>;
    if (typeof value.keyId === 'string') return { keyId: value.keyId };
    if (typeof value.accountId === 'string') return { accountId: value.accountId };
    if (typeof value.slug === 'string') return { slug: value.slug };
    if (typeof value.signingKeyId === 'string') return { signingKeyId: value.signingKeyId };
  } catch {
    // not one of ours: ignored
  }
  return undefined;
}

export class RedisInvalidationBus implements InvalidationBus {
  readonly #publisher: RedisClient;
  readonly #target: RedisTarget | string;
  readonly #channel: string;
  readonly #log: AdapterLog | undefined;
  #subscriber: RedisClient | undefined;
  #subscribed = false;
  readonly #listeners: Array<{ onMessage: (invalidation: Invalidation) => void; onResync: () => void }> = [];

  /**
   * Publishes on `publisher` (its creator's to close); the subscriber connection is this bus's own, made on first
   * listen().
   */
  constructor(publisher: RedisClient, target: RedisTarget | string, options: RedisInvalidationBusOptions = {}) {
    this.#publisher = publisher;
    this.#target = target;
    this.#channel = `${options.keyPrefix ?? 'qrm:'}credentials:invalidate`;
    this.#log = options.log;
  }

  async publish(invalidation: Invalidation): Promise<void> {
    await this.#publisher.publish(this.#channel, JSON.stringify(invalidation));
  }

  listen(onMessage: (invalidation: Invalidation) => void, onResync: () => void): void {
    this.#listeners.push({ onMessage, onResync });
    if (this.#subscriber) return;
    const resync = () => {
      for (const listener of this.#listeners) listener.onResync();
    };
    const subscriber = createRedisClient(this.#target, {
      name: 'qrm-credential-invalidations',
      subscriber: true,
      ...(this.#log ? { log: this.#log } : {}),
    });
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.#channel) return;
      const invalidation = parse(message);
      if (invalidation) for (const listener of this.#listeners) listener.onMessage(invalidation);
    });
    subscriber.on('close', () => {
      if (!this.#subscribed) return;
      this.#subscribed = false;
      resync();
    });
    // Live only once Redis confirms the subscription, after every (re)connection: until then lookups bypass the cache.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.#channel).then(
        () => {
          this.#subscribed = true;
          resync();
        },
        () => undefined,
      );
    });
  }

  live(): boolean {
    return this.#subscribed && this.#subscriber?.status === 'ready';
  }

  async close(): Promise<void> {
    this.#subscribed = false;
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
  }
}
