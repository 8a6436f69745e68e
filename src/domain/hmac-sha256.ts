// HMAC-SHA-256 (RFC 2104) of a text, in hex, as two one-shot hashes over pads worked out once per key.
import { hash } from 'node:crypto';

/** SHA-256's block: a longer key is hashed first, a shorter one padded with zeros (RFC 2104 §2). */
const BLOCK_BYTES = 64;

/**
 * The digest `createHmac('sha256', key).update(message).digest('hex')` gives, byte for byte. On a hot path it is
 * cheaper: no native Hmac object and no digest Buffer per call, whose collection under load cost a split scan more
 * than the hashing (docs/decisions/scan-digests-one-shot.md). Make one per key and keep it.
 */
export class HmacSha256 {
  readonly #inner = Buffer.alloc(BLOCK_BYTES);
  readonly #outer = Buffer.alloc(BLOCK_BYTES);

  constructor(key: Uint8Array) {
    const block = Buffer.alloc(BLOCK_BYTES);
    block.set(key.length > BLOCK_BYTES ? hash('sha256', key, 'buffer') : key);
    for (let i = 0; i < BLOCK_BYTES; i++) {
      this.#inner[i] = block[i]! ^ 0x36;
      this.#outer[i] = block[i]! ^ 0x5c;
    }
  }

  hex(message: string): string {
    const inner = hash('sha256', Buffer.concat([this.#inner, Buffer.from(message)]), 'binary');
    return hash('sha256', Buffer.concat([this.#outer, Buffer.from(inner, 'binary')]), 'hex');
  }
}
