// The answer to a generation (POST generate, a dynamic code's image, a signed image URL): the image and quota headers,
// or 304.
import type { FastifyReply } from 'fastify';
import type { GeneratedQr, NotModifiedQr } from '../services/generate-qr.js';
import { IMAGE_MEDIA_TYPES } from './image-media-types.js';
import { setQuotaHeaders } from './quota-headers.js';

/** The API's images are the caller's own: revalidated on every use. A signed URL's are public and immutable instead. */
const REVALIDATE = 'private, max-age=0, must-revalidate';

/** Quota headers whenever the answer was metered (a 304 only where every answer counts, as for signed URLs). */
export function sendGeneratedImage(
  reply: FastifyReply,
  result: GeneratedQr | NotModifiedQr,
  cacheControl = REVALIDATE,
): FastifyReply {
  if (result.quota) setQuotaHeaders(reply, result.quota);
  if (result.notModified)
    return reply.code(304).header('ETag', result.etag).header('Cache-Control', cacheControl).send();
  return reply
    .code(200)
    .header('Content-Type', IMAGE_MEDIA_TYPES[result.format])
    .header('ETag', result.etag)
    .header('Cache-Control', cacheControl)
    .header('QR-Version', String(result.symbol.version))
    .header('QR-Error-Correction', result.symbol.errorCorrection)
    .send(Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength));
}
