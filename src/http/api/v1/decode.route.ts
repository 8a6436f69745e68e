// POST /api/v1/QRManager/decode: the QR codes in an uploaded image (a photo of a print, a design), with what each reader the service runs read.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import type { PlanCatalogue } from '../../../domain/plan-catalogue.js';
import { DECODE_READERS, type QrDecoder } from '../../../domain/ports/qr-decoder.js';
import type { UsageMeter } from '../../../domain/ports/usage-meter.js';
import { meterRequest, type MeteredRequest } from '../../../services/meter-request.js';
import { refuseDeclaredOver } from '../../body-cap.js';
import { binaryContent, QUOTA_HEADERS } from '../../openapi/operation-doc.js';
import { setQuotaHeaders } from '../../quota-headers.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';

/** An image body is at most this many bytes, and decodes to at most DECODE_MAX_PIXELS (a 12-megapixel phone photo fits). */
export const DECODE_MAX_BYTES = 8 * 1024 * 1024;
export const DECODE_MAX_PIXELS = 16_000_000;
const MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

export interface DecodeRouteDeps {
  decoder: QrDecoder;
  meter: UsageMeter;
  plans: PlanCatalogue;
  clock: () => Date;
}

const DecodedCode = z
  .object({
    text: z.string().describe('The text of the code, as ZXing reads it (else as jsQR, else as zbar reads it, when ZXing found no code).'),
    version: z.number().int().nullable().describe('QR version 1–40 (null when ZXing found no code).'),
    errorCorrection: z.enum(['L', 'M', 'Q', 'H']).nullable(),
    readers: z
      .object(Object.fromEntries(DECODE_READERS.map((reader) => [reader, z.string().nullable()])))
      .describe(
        'What each reader read (null: it found no code). zbar (its WebAssembly build) gives bytes: shown as the text when they spell it in UTF-8, ISO-8859-1 or Shift_JIS, else as UTF-8.',
      ),
  })
  .meta({ id: 'DecodedCode' });

const tooLarge = (bytes: number) =>
  new ApiError('payload_too_large', `an image to decode is at most ${DECODE_MAX_BYTES} bytes; this one is ${bytes} bytes or more`, {
    extensions: { limitBytes: DECODE_MAX_BYTES },
  });

export const decodeRoute: FastifyPluginAsyncZod<DecodeRouteDeps> = async (app, deps) => {
  // In this route's own context only: the body arrives as bytes, and the handler says which types it takes.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: DECODE_MAX_BYTES }, (_request, body, done) => done(null, body));
  // A decode counts once it has been decoded (a code found or none); anything that ends it earlier — a body too
  // large or of another type, an unreadable image, a decoder failure, a dropped connection — gives the request back.
  const uncounted = new WeakMap<object, MeteredRequest>();
  const giveBack = async (request: object) => {
    const metered = uncounted.get(request);
    if (!metered) return;
    uncounted.delete(request);
    await deps.meter.refundRequest(metered.reservation);
  };
  app.addHook('onResponse', async (request) => giveBack(request));
  app.addHook('onRequestAbort', async (request) => giveBack(request));

  app.post(
    '/QRManager/decode',
    {
      bodyLimit: DECODE_MAX_BYTES,
      preParsing: async (request, reply, payload) => {
        refuseDeclaredOver(request, reply, DECODE_MAX_BYTES, tooLarge);
        // Burst and monthly requests before a byte of the image is read.
        uncounted.set(request, await meterRequest(deps, callerOf(request), 'decodes'));
        return payload;
      },
      schema: {
        operationId: 'decodeImage',
        summary: 'Read the QR codes in an image',
        description:
          `The body is the image itself (PNG, JPEG or WebP, at most ${DECODE_MAX_BYTES} bytes and ${DECODE_MAX_PIXELS} pixels): a photo of a printed code, ` +
          'or a design of your own. Every code found is answered with its text, version and error correction level, and what each reader the service runs ' +
          "(ZXing, jsQR) read. Decoded on a worker thread. Metered as one request (no QR code counted) and held to the key's burst, " +
          'with the quota headers generate answers; a decode that ends before the image is decoded (a refused body, an unreadable image) is not counted.',
        tags: ['decode'],
        security: [{ apiKey: [] }],
        response: {
          200: z.object({ codes: z.array(DecodedCode).min(1) }),
          ...problemResponses([
            'invalid_request',
            'unsupported_media_type',
            'payload_too_large',
            'no_code_found',
            'rate_limited',
            'quota_exceeded',
            'overloaded',
            'missing_api_key',
            'invalid_api_key',
            ...COMMON_ERRORS,
          ]),
        },
        'x-document': {
          requestBody: { description: 'The image itself, as sent (no JSON, no multipart).', content: binaryContent(MEDIA_TYPES) },
          headers: { '200': QUOTA_HEADERS, '422': QUOTA_HEADERS },
        },
      },
    },
    async (request, reply) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!(MEDIA_TYPES as readonly string[]).includes(type))
        throw new ApiError('unsupported_media_type', `send the image itself as the body with Content-Type ${MEDIA_TYPES.join(', ')}`);
      if (!Buffer.isBuffer(request.body) || request.body.length === 0) throw new ApiError('invalid_request', 'the body is empty; send the image itself');
      const outcome = await deps.decoder.decode(request.body, DECODE_MAX_PIXELS);
      if (!outcome.ok) throw new ApiError(outcome.reason === 'too_many_pixels' ? 'payload_too_large' : 'invalid_request', outcome.detail);
      // Decoded: this request counts, whether or not a code was in the image.
      const { quota } = uncounted.get(request)!;
      uncounted.delete(request);
      if (outcome.codes.length === 0)
        throw new ApiError('no_code_found', 'no QR code was found in the image; a sharper, larger or straighter picture may read', { quota });
      setQuotaHeaders(reply, quota);
      return { codes: outcome.codes };
    },
  );
};
