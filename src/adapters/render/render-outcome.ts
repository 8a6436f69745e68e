// The one place a render's refusal becomes the ApiError its caller sees, wherever it was drawn (inline, on a thread, in a group).
import { ApiError } from '../../domain/errors.js';
import type { RenderSpec } from '../../domain/render-options.js';
import type { RenderRefusal, RenderTaskResult } from '../../render/render-task.js';
import { symbolFit } from '../../render/symbol-fit.js';

/**
 * Every render ends in a RenderTaskResult (renderTask maps the writers' exceptions to data once, since class
 * identity does not survive the thread boundary); this maps the data, and nothing else maps errors.
 */
export function refusalError(refusal: RenderRefusal, spec: RenderSpec): ApiError {
  switch (refusal.reason) {
    case 'too_long': {
      const { limit } = refusal;
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
    case 'size_too_small':
      return new ApiError('invalid_request', `size must be at least ${refusal.minimumSize} px for this content and margin`, {
        fields: [{ field: 'size', detail: `at least ${refusal.minimumSize} for this content and margin` }],
        extensions: { minimumSize: refusal.minimumSize },
      });
    case 'unscannable':
      return new ApiError('unscannable_design', refusal.detail, {
        extensions: { changes: refusal.changes, ...(refusal.maxLogoScale === undefined ? {} : { maxLogoScale: refusal.maxLogoScale }) },
      });
  }
}

/** A render's bytes, or its refusal thrown. */
export function bytesOrError(result: RenderTaskResult, spec: RenderSpec): Uint8Array {
  if (result.ok) return result.bytes;
  throw refusalError(result, spec);
}

/** Refuses a spec no image can be drawn for, from its symbol's version alone (no matrix is built). */
export function assertDrawable(spec: RenderSpec): void {
  const fit = symbolFit(spec);
  if (!fit.ok) throw refusalError(fit, spec);
}
