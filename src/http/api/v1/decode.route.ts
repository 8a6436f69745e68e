// POST /api/v1/QRManager/decode: the QR codes in an uploaded image (a photo of a print, a design), with what each
// reader the service runs read.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import type { PlanCatalogue } from '../../../domain/plan-catalogue.js';
import {
  DECODE_READERS,
  type DecodeOutcome,
  type DecodeRequest,
  type QrDecoder,
} from '../../../domain/ports/qr-decoder.js';
import type { UsageMeter } from '../../../domain/ports/usage-meter.js';
import { meterRequest, type MeteredRequest } from '../../../services/meter-request.js';
import { refuseDeclaredOver } from '../../body-cap.js';
import { binaryContent, QUOTA_HEADERS } from '../../openapi/operation-doc.js';
import { setQuotaHeaders } from '../../quota-headers.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { keyWithScope } from './route-scope.js';

/**
 * An image body is at most this many bytes, and decodes to at most DECODE_MAX_PIXELS (a 12-megapixel phone photo fits).
 */
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
    text: z
      .string()
      .describe(
        'The text of the code, as ZXing reads it (else as jsQR, else as zbar reads it, when ZXing found no code).',
      ),
    version: z.number().int().nullable().describe('QR version 1–40 (null when ZXing found no code).'),
    errorCorrection: z.enum(['L', 'M', 'Q', 'H']).nullable(),
    readers: z
      .object(Object.fromEntries(DECODE_READERS.map((reader) => [reader, z.string().nullable()])))
      .describe(
        'What each reader read (null: it found no code). zbar (its WebAssembly build) gives bytes: shown as ' +
          'the text when they spell it in UTF-8, ISO-8859-1 or Shift_JIS, else as UTF-8.',
      ),
  })
  .meta({ id: 'DecodedCode' });

const ReaderList = z.array(z.enum(DECODE_READERS));

const tooLarge = (bytes: number) =>
  new ApiError(
    'payload_too_large',
    `an image to decode is at most ${DECODE_MAX_BYTES} bytes; this one is ${bytes} bytes or more`,
    {
      extensions: { limitBytes: DECODE_MAX_BYTES },
    },
  );

export const decodeRoute: FastifyPluginAsyncZod<DecodeRouteDeps> = async (app, deps) => {
  // In this route's own context only: the body arrives as bytes, and the handler says which types it takes.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: DECODE_MAX_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  // A decode counts from the moment it is metered, as generate's render does, whatever comes of the image: found, none
  // found, unreadable, refused by the decoder or cut off (a dropped or timed-out upload). Only a body that is plainly
  // nothing to decode (another type, empty) and a decoder that broke give the request back.
  const meteredBy = new WeakMap<object, MeteredRequest>();

  app.post(
    '/QRManager/decode',
    {
      bodyLimit: DECODE_MAX_BYTES,
      preParsing: async (request, reply, payload) => {
        refuseDeclaredOver(request, reply, DECODE_MAX_BYTES, tooLarge);
        // Burst and monthly requests before a byte of the image is read.
        meteredBy.set(request, await meterRequest(deps, callerOf(request), 'decodes'));
        return payload;
      },
      config: { audit: { exempt: 'reads an image; only the request is metered' } },
      schema: {
        operationId: 'decodeImage',
        summary: 'Read the QR codes in an image',
        description:
          `The body is the image itself (PNG, JPEG or WebP, at most ${DECODE_MAX_BYTES} bytes and ` +
          `${DECODE_MAX_PIXELS} pixels): a photo of a printed code, ` +
          ('or a design of your own. Every code found is answered with its text, version and error correction ' +
            'level, and what each reader the service runs ') +
          ('(ZXing, zbar, jsQR) read. Decoded on a worker thread, within a time budget: ZXing always reads the ' +
            'image; zbar and jsQR read the region around ') +
          ('each code scaled down to what it needs, and one not started within the budget is skipped and named ' +
            'in `readersSkipped`. Each account has its own ') +
          ('share of the decoder (`429 too_many_decodes` past it). Metered as one request (no QR code counted) ' +
            "and held to the key's burst, with the quota ") +
          ('headers generate answers; it counts whatever comes of the image (no code, unreadable, refused, an ' +
            'upload cut off), except a body of another ') +
          'type or an empty one.',
        tags: ['decode'],
        security: keyWithScope('decode'),
        response: {
          200: z.object({
            codes: z.array(DecodedCode).min(1),
            readersRan: ReaderList.describe('The readers that read the image (ZXing always).'),
            readersSkipped: ReaderList.describe(
              "The readers not run because the decode's time budget had run out: their `null` means not tried.",
            ),
          }),
          ...problemResponses([
            'invalid_request',
            'unsupported_media_type',
            'payload_too_large',
            'no_code_found',
            'rate_limited',
            'quota_exceeded',
            'too_many_decodes',
            'overloaded',
            'missing_api_key',
            'invalid_api_key',
            'expired_api_key',
            'insufficient_scope',
            ...COMMON_ERRORS,
          ]),
        },
        'x-document': {
          requestBody: {
            description: 'The image itself, as sent (no JSON, no multipart).',
            content: binaryContent(MEDIA_TYPES),
          },
          headers: { '200': QUOTA_HEADERS, '422': QUOTA_HEADERS },
        },
      },
    },
    async (request, reply) => {
      const metered = meteredBy.get(request)!;
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const nothingToDecode = !(MEDIA_TYPES as readonly string[]).includes(type)
        ? new ApiError(
            'unsupported_media_type',
            `send the image itself as the body with Content-Type ${MEDIA_TYPES.join(', ')}`,
          )
        : !Buffer.isBuffer(request.body) || request.body.length === 0
          ? new ApiError('invalid_request', 'the body is empty; send the image itself')
          : undefined;
      if (nothingToDecode) {
        await deps.meter.refundRequest(metered.reservation);
        throw nothingToDecode;
      }
      const outcome = await decodeOrGiveBack(deps, metered, {
        image: request.body as Buffer,
        maxPixels: DECODE_MAX_PIXELS,
        accountId: callerOf(request).accountId,
      });
      if (!outcome.ok)
        throw new ApiError(
          outcome.reason === 'too_many_pixels' ? 'payload_too_large' : 'invalid_request',
          outcome.detail,
        );
      const { codes, readersRan, readersSkipped } = outcome;
      if (codes.length === 0)
        throw new ApiError(
          'no_code_found',
          'no QR code was found in the image; a sharper, larger or straighter picture may read',
          {
            quota: metered.quota,
            extensions: { readersRan, readersSkipped },
          },
        );
      setQuotaHeaders(reply, metered.quota);
      return { codes, readersRan, readersSkipped };
    },
  );
};

/** The decoder's outcome; a decoder that broke (not a refusal) gives the request back before the 500. */
export async function decodeOrGiveBack(
  deps: Pick<DecodeRouteDeps, 'decoder' | 'meter'>,
  metered: MeteredRequest,
  request: DecodeRequest,
): Promise<DecodeOutcome> {
  try {
    return await deps.decoder.decode(request);
  } catch (error) {
    if (!(error instanceof ApiError)) await deps.meter.refundRequest(metered.reservation);
    throw error;
  }
}
