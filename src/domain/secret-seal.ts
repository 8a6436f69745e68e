// Seals secrets the service must read back (signing keys: an HMAC needs the secret itself) with AES-256-GCM under a key
// derived from the operator's secret.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/** Opened secrets kept per instance: a signed URL is verified on every hit, and a sealed value never changes. */
const OPENED_MAX = 10_000;

/**
 * A database alone never yields a signing secret: each is encrypted under a key derived (HKDF-SHA256) from the
 * operator's secret, with the record's id as associated data, so a sealed value moved to another record does not open.
 */
export class SecretSeal {
  readonly #key: Buffer;
  readonly #opened = new Map<string, string>();

  constructor(masterSecret: string | Uint8Array) {
    this.#key = Buffer.from(hkdfSync('sha256', masterSecret, 'qr-manager', 'signing-key-seal/v1', 32));
  }

  /**
   * A key for another purpose (`split-arm/v1`), derived from the same operator secret and independent of the seal's.
   */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key, 'qr-manager', purpose, 32));
  }

  seal(secret: string, recordId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(recordId));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64url'),
      body.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  /**
   * The secret, or undefined when the value was sealed under another key (the operator's secret changed) or tampered
   * with.
   */
  open(sealed: string, recordId: string): string | undefined {
    const memo = `${recordId}\n${sealed}`;
    const known = this.#opened.get(memo);
    if (known !== undefined) return known;
    const secret = this.#decrypt(sealed, recordId);
    if (secret !== undefined) {
      if (this.#opened.size >= OPENED_MAX) this.#opened.delete(this.#opened.keys().next().value!);
      this.#opened.set(memo, secret);
    }
    return secret;
  }

  #decrypt(sealed: string, recordId: string): string | undefined {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || body === undefined || !tag) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(recordId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
