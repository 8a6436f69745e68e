// The ApiErrors a render can end in, from a pool task's result or straight from the writers' exceptions.
import { ApiError } from '../../domain/errors.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { SizeTooSmallError } from '../../render/layout.js';
import { PayloadTooLongError } from '../../render/qr-matrix.js';
import type { RenderTaskResult } from '../../render/render-task.js';
import { symbolFit } from '../../render/symbol-fit.js';

function contentTooLong(spec: RenderSpec, limit: number): ApiError {
  const length = Buffer.byteLength(spec.payload);
  return new ApiError(
    'content_too_long',
    `the encoded content is ${length} bytes; at error correction ${spec.errorCorrection} a QR code holds at most ${limit} bytes`,
    {
      extensions: { limit, length, errorCorrection: spec.errorCorrection },
      fields: [{ field: 'content', detail: `at most ${limit} bytes at error correction ${spec.errorCorrection}` }],
    },
  );
}

function sizeTooSmall(minimumSize: number): ApiError {
  return new ApiError('invalid_request', `size must be at least ${minimumSize} px for this content and margin`, {
    fields: [{ field: 'size', detail: `at least ${minimumSize} for this content and margin` }],
    extensions: { minimumSize },
  });
}

/** A pool task's answer: errors crossed the thread boundary as data. */
export function bytesOrError(result: RenderTaskResult, spec: RenderSpec): Uint8Array {
  if (result.ok) return result.bytes;
  throw result.reason === 'too_long' ? contentTooLong(spec, result.limit) : sizeTooSmall(result.minimumSize);
}

/** Refuses a spec no image can be drawn for, from its symbol's version alone (no matrix is built). */
export function assertDrawable(spec: RenderSpec): void {
  const fit = symbolFit(spec);
  if (!fit.ok) throw fit.reason === 'too_long' ? contentTooLong(spec, fit.limit) : sizeTooSmall(fit.minimumSize);
}

/** An inline render's exception, where no thread was crossed: mapped directly, anything else passed through. */
export function apiErrorOf(error: unknown, spec: RenderSpec): unknown {
  if (error instanceof PayloadTooLongError) return contentTooLong(spec, error.limit);
  if (error instanceof SizeTooSmallError) return sizeTooSmall(error.minimumSize);
  return error;
}
