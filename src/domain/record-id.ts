// Record identifiers, whichever store keeps the record: a type prefix and 20 random base64url characters.
import { randomBytes } from 'node:crypto';

export function newId(prefix: 'acc' | 'key' | 'dyn' | 'logo' | 'whk' | 'aud' | 'mem' | 'inv'): string {
  return `${prefix}_${randomBytes(15).toString('base64url')}`;
}
