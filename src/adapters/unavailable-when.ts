// Wraps an adapter so that failures of the technology behind it (down, unreachable, full) surface as 503 unavailable.
import { ApiError } from '../domain/errors.js';

/**
 * Every method of the adapter, unchanged, except that errors `isOutage` recognises become ApiError
 * `unavailable` with Retry-After: 1. Anything else (a bug, a rule) passes through as it was thrown.
 */
export function unavailableWhen<T extends object>(
  adapter: T,
  isOutage: (error: unknown) => boolean,
  detail: string,
): T {
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          // Called on the target itself: the adapters keep their state in #private fields.
          return await (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          if (error instanceof ApiError || !isOutage(error)) throw error;
          throw new ApiError('unavailable', detail, { retryAfterSeconds: 1, cause: error });
        }
      };
    },
  });
}
