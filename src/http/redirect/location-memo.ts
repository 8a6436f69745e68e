// The Location header of each destination of a code version, worked out once instead of on every scan (the UTM tags
// appended and the URL serialised), when it depends on the code alone.
import type { SlugTarget } from '../../domain/dynamic-code.js';

/** Destinations kept per code version at most; past it they are worked out on every scan, as without the memo. */
export const DESTINATIONS_PER_CODE = 256;

export class LocationMemo {
  // Keyed by the cached code itself: a changed code is a new object, and a code dropped from the cache takes its
  // headers with it.
  readonly #byCode = new WeakMap<SlugTarget, Map<string, string>>();

  /** The header for `target` of `code`: `header()` the first time, the same string after. */
  of(code: SlugTarget, target: string, header: () => string): string {
    let headers = this.#byCode.get(code);
    if (headers === undefined) {
      headers = new Map();
      this.#byCode.set(code, headers);
    }
    let value = headers.get(target);
    if (value === undefined) {
      value = header();
      if (headers.size < DESTINATIONS_PER_CODE) headers.set(target, value);
    }
    return value;
  }

  /** How many headers are kept for `code`. */
  rememberedFor(code: SlugTarget): number {
    return this.#byCode.get(code)?.size ?? 0;
  }
}
