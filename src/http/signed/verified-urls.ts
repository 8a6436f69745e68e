// The signed URLs this instance has verified, by their exact text: a repeated hit (a browser or CDN revalidating) skips
// the query parse, the HMAC and the options' validation.
import { LRUCache } from 'lru-cache';
import type { GenerateBody } from '../api/v1/generate.schema.js';
import type { RequestedImage } from '../../services/render-spec.js';

export interface VerifiedHit {
  /**
   * The key material the signature was checked with: a hit counts only while the key still opens to the same secret.
   */
  secret: string;
  expiresAt: number | undefined;
  /** The options as POST generate's body, validated: never mutated by the handler. */
  body: GenerateBody;
  /** The body's image, kept from the URL's first answer when it depends on the body alone (`dependsOnFieldsAlone`). */
  image?: RequestedImage | undefined;
}

/** Longer URLs are verified every time: the memo holds at most MAX_ENTRIES × this many characters of keys. */
const MAX_URL_LENGTH = 4_096;
const MAX_ENTRIES = 5_000;

/**
 * Sound because verification is a function of the URL's text and the key's secret alone: the same text signed by
 * the same secret verifies the same way, so what changes an answer (a revoked key, the clock passing `exp`) is still
 * checked on every hit. Only URLs that verified and parsed are kept, so strangers cannot fill it.
 */
export function verifiedUrlMemo(): LRUCache<string, VerifiedHit> {
  return new LRUCache({ max: MAX_ENTRIES, maxEntrySize: MAX_URL_LENGTH, sizeCalculation: (_hit, url) => url.length });
}
