// GET /i/{keyId}/{format}?…&exp=&sig=: a signed image URL (no API key), cacheable by browsers and CDNs; every answer we
// give is metered.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OUTPUT_FORMATS } from '../../domain/plan-catalogue.js';
import { parseQuery } from '../../domain/signed-url.js';
import { ApiError } from '../../domain/errors.js';
import { generateImage, prepareImage, type GenerateQrDeps } from '../../services/generate-qr.js';
import { dependsOnFieldsAlone } from '../../services/render-spec.js';
import { IMAGE_MEDIA_TYPES } from '../image-media-types.js';
import { maxAgeSeconds, verifySignedUrl } from '../../services/signed-image.js';
import { activeSigningKey, type SigningIdentity, type SigningKeyDeps } from '../../services/signing-keys.js';
import { binaryContent, header, QUOTA_HEADERS, type HeaderDoc } from '../openapi/operation-doc.js';
import { problemResponses } from '../openapi/problem.schema.js';
import { sendGeneratedImage } from '../image-reply.js';
import { generateBodyOf } from './signed-query.js';
import { verifiedUrlMemo, type VerifiedHit } from './verified-urls.js';

export type SignedImageRouteDeps = GenerateQrDeps & Pick<SigningKeyDeps, 'signingKeys' | 'signingSeal'>;

export const SIGNED_IMAGE_ERRORS = [
  'invalid_request',
  'unsupported_type',
  'unsupported_format',
  'invalid_content',
  'invalid_signature',
  'plan_upgrade_required',
  'url_expired',
  'content_too_long',
  'unscannable_design',
  'quota_exceeded',
  'qr_quota_exceeded',
  'rate_limited',
  'internal_error',
  'overloaded',
  'unavailable',
  // On a Host that is not this service's own (a custom domain).
  'not_found',
] as const;

// A repeated parameter arrives as a list: it is refused by the handler, after the signature check, as every option
// problem is.
const CACHE_CONTROL: HeaderDoc = {
  description: '`public, max-age=31536000, immutable`, or with `exp` a max-age of the seconds left until it.',
  required: true,
  schema: { type: 'string' },
};

const option = (description: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(description);

/** Documents the parameters; the handler reads the raw query itself, since the signature covers it as sent. */
const SignedQuery = z.looseObject({
  content: option('What to encode, as in POST generate; structured content as a JSON string.'),
  type: option('The kind of content, as in POST generate.'),
  exp: option('Expiry, unix seconds: after it the URL answers 410 `url_expired`. Optional.'),
  sig: option('base64url (no padding) of HMAC-SHA256(secret, canonical string). See docs/signed-urls.md.'),
  size: option('Any other option of POST generate, by the same name (`logo.id`, `frame.text` for nested fields).'),
});

export const signedImageRoute: FastifyPluginAsyncZod<SignedImageRouteDeps> = async (app, deps) => {
  const verifiedUrls = verifiedUrlMemo();

  /**
   * A verified URL: who signed it, what it asks for, and how long a cache may keep the answer (checked against the
   * clock now).
   */
  interface VerifiedRequest {
    signer: SigningIdentity;
    verified: VerifiedHit;
    maxAge: number;
  }

  /**
   * Signature, then expiry, then the options: each refusal in that order, so strangers learn nothing about the options.
   */
  async function verify(raw: string, keyId: string, format: string): Promise<VerifiedRequest> {
    const question = raw.indexOf('?');
    const path = question === -1 ? raw : raw.slice(0, question);
    const params = parseQuery(question === -1 ? '' : raw.slice(question + 1));
    if (!params) throw new ApiError('invalid_request', 'the query string is not valid percent-encoding');
    const { signer, expiresAt, options } = await verifySignedUrl(deps, path, keyId, params);
    const maxAge = maxAgeSeconds(expiresAt, deps.clock());
    const verified = { secret: signer.secret, expiresAt, body: generateBodyOf(format, options) };
    verifiedUrls.set(raw, verified);
    return { signer, verified, maxAge };
  }

  /** A URL verified before, still signed by a live key with the same secret, verifies as it did: no parse, no HMAC. */
  async function verifiedRequest(raw: string, keyId: string, format: string): Promise<VerifiedRequest> {
    const remembered = verifiedUrls.get(raw);
    if (remembered) {
      const signer = await activeSigningKey(deps, keyId);
      if (signer && signer.secret === remembered.secret)
        return { signer, verified: remembered, maxAge: maxAgeSeconds(remembered.expiresAt, deps.clock()) };
    }
    return verify(raw, keyId, format);
  }

  // A refusal must not be cached by a CDN in front of us: the next request may be a fixed one.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode >= 400) reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });

  app.get(
    '/i/:keyId/:format',
    {
      schema: {
        operationId: 'signedImage',
        summary: 'A signed image URL (for <img src>, e-mail, a CDN)',
        description:
          'The image POST generate would answer for the same options, given as query parameters, with no API ' +
          'key: the URL is signed by you with a ' +
          ('signing key (POST /api/v1/QRManager/signing-keys), no API call per URL. `sig` is base64url (no ' +
            'padding) of HMAC-SHA256 of the secret over the ') +
          ('canonical string: the path, `?`, then every query parameter but `sig`, sorted by name then value, ' +
            'each `enc(name)=enc(value)` ') +
          ('(RFC 3986 percent-encoding), joined by `&`. The answer has a strong ETag (304 on If-None-Match) and ' +
            '`Cache-Control: public, max-age=31536000, immutable` ') +
          ("(max-age up to `exp` when given). Each answer (200 or 304) counts as a request of the key's " +
            'account, under its burst.'),
        tags: ['generation'],
        security: [],
        params: z.object({
          keyId: z.string().max(64).describe('The signing key id (`sk_…`).'),
          format: z
            .string()
            .max(16)
            .describe(`Output format: ${OUTPUT_FORMATS.join(', ')}.`),
        }),
        querystring: SignedQuery,
        response: problemResponses(SIGNED_IMAGE_ERRORS),
        'x-document': {
          responses: {
            '200': {
              description:
                'The QR code image in the format the path names, byte for byte what POST generate answers for ' +
                'the same fields.',
              content: binaryContent(Object.values(IMAGE_MEDIA_TYPES)),
              headers: { ETag: header.etag, 'Cache-Control': CACHE_CONTROL, ...QUOTA_HEADERS },
            },
            '304': {
              description: 'Not modified: If-None-Match named this image. Counted as a request all the same.',
              headers: { ETag: header.etag, 'Cache-Control': CACHE_CONTROL, ...QUOTA_HEADERS },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const raw = request.raw.url ?? request.url;
      const { keyId, format } = request.params;
      const { signer, verified, maxAge } = await verifiedRequest(raw, keyId, format);
      const caller = { accountId: signer.accountId, plan: signer.plan, burstKey: `signed.${signer.accountId}` };
      // A revalidated URL skips the encoding, the colour checks and the hashing; a design or logo is read every time.
      const kept = verified.image;
      const prepared = kept ? undefined : await prepareImage(deps, caller, verified.body);
      if (prepared && dependsOnFieldsAlone(verified.body)) verified.image = prepared.image;
      // A prepared image is answered under the plan just checked; a kept one has its plan checked again.
      const result = await generateImage(deps, caller, prepared ?? kept!, {
        ifNoneMatch: request.headers['if-none-match'],
        meterNotModified: true,
      });
      return sendGeneratedImage(reply, result, `public, max-age=${maxAge}, immutable`);
    },
  );
};
