// Turns a render task's result into image bytes or the ApiError the caller should see.
import { ApiError } from '../../domain/errors.js';
import type { RenderSpec } from '../../domain/render-options.js';
import type { RenderTaskResult } from '../../render/render-task.js';

export function bytesOrError(result: RenderTaskResult, spec: RenderSpec): Uint8Array {
  if (result.ok) return result.bytes;
  if (result.reason === 'too_long') {
    const length = Buffer.byteLength(spec.payload);
    throw new ApiError('content_too_long', `the encoded content is ${length} bytes; at error correction ${spec.errorCorrection} a QR code holds at most ${result.limit} bytes`, {
      extensions: { limit: result.limit, length, errorCorrection: spec.errorCorrection },
      fields: [{ field: 'content', detail: `at most ${result.limit} bytes at error correction ${spec.errorCorrection}` }],
    });
  }
  if (result.reason === 'unscannable') {
    throw new ApiError('unscannable_design', result.detail, {
      extensions: { changes: result.changes, ...(result.maxLogoScale === undefined ? {} : { maxLogoScale: result.maxLogoScale }) },
    });
  }
  throw new ApiError('invalid_request', `size must be at least ${result.minimumSize} px for this content and margin`, {
    fields: [{ field: 'size', detail: `at least ${result.minimumSize} for this content and margin` }],
    extensions: { minimumSize: result.minimumSize },
  });
}
