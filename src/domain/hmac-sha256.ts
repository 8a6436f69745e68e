// HMAC-SHA-256 (RFC 2104) of a text, in hex, as two one-shot hashes over pads worked out once per key.
import { hash } from 'node:crypto';

/** SHA-256's block: a longer key is hashed first, a shorter one padded with zeros (RFC 2104 §2). */
const BLOCK_BYTES = 64;

interface Pads {
  inner: Buffer;
  outer: Buffer;
}

const padsByKey = new WeakMap<Uint8Array, Pads>();

function padsOf(key: Uint8Array): Pads {
  let pads = padsByKey.get(key);
  if (pads === undefined) {
    const block = Buffer.alloc(BLOCK_BYTES);
    block.set(key.length > BLOCK_BYTES ? hash('sha256', key, 'buffer') : key);
    pads = { inner: Buffer.alloc(BLOCK_BYTES), outer: Buffer.alloc(BLOCK_BYTES) };
    for (let i = 0; i < BLOCK_BYTES; i++) {
      pads.inner[i] = block[i]! ^ 0x36;
      pads.outer[i] = block[i]! ^ 0x5c;
    }
    padsByKey.set(key, pads);
  }
  return pads;
}

/**
 * The digest `createHmac('sha256', key).update(message).digest('hex')` gives, byte for byte. On the redirect it is
 * cheaper: no native Hmac object and no digest Buffer per call, whose collection under load cost a split scan more
 * than the hashing (docs/decisions/scan-digests-one-shot.md). `key` is read once: change it and pass a new array.
 */
export function hmacSha256Hex(key: Uint8Array, message: string): string {
  const pads = padsOf(key);
  const inner = hash('sha256', Buffer.concat([pads.inner, Buffer.from(message)]), 'binary');
  return hash('sha256', Buffer.concat([pads.outer, Buffer.from(inner, 'binary')]), 'hex');
}
