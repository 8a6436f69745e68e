// POST /api/v1/QRManager/generate: the image in the body, quota in the headers.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { generateQr, type GenerateQrDeps } from '../../../services/generate-qr.js';
import { IMAGE_MEDIA_TYPES } from '../../image-media-types.js';
import type { Limit, PlanCatalogue } from '../../../domain/plan-catalogue.js';
import { imageResponses } from '../../openapi/operation-doc.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { GenerateBody } from './generate.schema.js';
import { sendGeneratedImage } from '../../image-reply.js';
import { callerOf } from './api-key-auth.js';
import { keyWithScope } from './route-scope.js';

/** Every problem this route can answer, documented in OpenAPI and checked by the docs test. */
export const GENERATE_ERRORS = [
  'invalid_request',
  'unsupported_type',
  'unsupported_format',
  'invalid_content',
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'insufficient_scope',
  'plan_upgrade_required',
  'payload_too_large',
  'unsupported_media_type',
  'content_too_long',
  'unscannable_design',
  'quota_exceeded',
  'qr_quota_exceeded',
  'rate_limited',
  'overloaded',
] as const;

/** The service's own plans, for the reference: an operator's plans file shows there, not ours. */
function plansNote(plans: PlanCatalogue): string {
  const figure = (limit: Limit, unit: string) => (limit === null ? `unlimited ${unit}` : `${limit} ${unit}`);
  const lines = plans.plans.map(
    (plan) =>
      `- **${plan.name}** (\`${plan.id}\`): ${figure(plan.requestsPerMonth, 'requests')} and ` +
      `${figure(plan.qrsPerMonth, 'distinct QRs')} a month, ` +
      (`${plan.burstPerSecond === null ? 'no burst limit' : `burst ${plan.burstPerSecond}/s per key`}, formats ` +
        `${plan.formats.join(', ')}`),
  );
  return (
    `\n\nPlans on this service (an unlimited dimension has no \`RateLimit\` entry, and no \`X-RateLimit-*\` ` +
    `headers when monthly requests are unlimited):\n${lines.join('\n')}`
  );
}

export const generateRoute: FastifyPluginAsyncZod<GenerateQrDeps> = async (app, deps) => {
  app.post(
    '/QRManager/generate',
    {
      config: { audit: { exempt: 'draws an image; only the request and the QR are metered' } },
      schema: {
        operationId: 'generateQr',
        summary: 'Generate a QR code image',
        description:
          'Encodes `content` as a QR code of the given `type` and answers with the image itself in the body. ' +
          ('Counts one request against the monthly quota, and one QR when the code (type + encoded content) is ' +
            'new this month. ') +
          ("Only successful generations count. Each API key is also held to its plan's burst (requests in any " +
            'one second): ') +
          'past it the answer is 429 `rate_limited` with `Retry-After: 1`, and nothing is counted.' +
          plansNote(deps.plans),
        tags: ['generation'],
        security: keyWithScope('generate'),
        body: GenerateBody,
        response: problemResponses([...GENERATE_ERRORS, ...COMMON_ERRORS]),
        'x-document': {
          responses: imageResponses(
            'The QR code image, unwrapped, in the requested format, with the quota headers.',
            Object.values(IMAGE_MEDIA_TYPES),
          ),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const result = await generateQr(deps, caller, request.body, { ifNoneMatch: request.headers['if-none-match'] });
      return sendGeneratedImage(reply, result);
    },
  );
};
