// The answer to a generation (POST generate, GET a dynamic code's image): the image and quota headers, or 304.
import type { FastifyReply } from 'fastify';
import { type GeneratedQr, type NotModifiedQr } from '../../../services/generate-qr.js';
import { IMAGE_MEDIA_TYPES } from '../../image-media-types.js';
import { setQuotaHeaders } from '../../quota-headers.js';

const REVALIDATE = 'private, max-age=0, must-revalidate';

export function sendGeneratedImage(reply: FastifyReply, result: GeneratedQr | NotModifiedQr): FastifyReply {
  if (result.notModified) return reply.code(304).header('ETag', result.etag).header('Cache-Control', REVALIDATE).send();
  setQuotaHeaders(reply, result.quota);
  return reply
    .code(200)
    .header('Content-Type', IMAGE_MEDIA_TYPES[result.format])
    .header('ETag', result.etag)
    .header('Cache-Control', REVALIDATE)
    .send(Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength));
}
