// POST /webhooks/stripe: Stripe's signed events, verified on the raw body and applied once (registered only with Stripe
// configured).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.js';
import { STRIPE_ACTOR } from '../../domain/actor.js';
import { handleBillingEvent, type BillingApplyDeps } from '../../services/billing.js';
import { COMMON_ERRORS, problemResponses } from '../openapi/problem.schema.js';
import '../openapi/operation-doc.js';

/** Stripe's events are a few kilobytes; this leaves room for large expanded objects. */
export const STRIPE_EVENT_MAX_BYTES = 512 * 1024;

const Received = z
  .object({
    received: z.literal(true),
    outcome: z
      .enum(['applied', 'duplicate', 'ignored'])
      .describe(
        '`applied`: the account follows the subscription; `duplicate`: this event id was applied before; ' +
          '`ignored`: not an event billing acts on.',
      ),
  })
  .meta({ id: 'StripeEventReceived' });

export const stripeWebhookRoute: FastifyPluginAsyncZod<BillingApplyDeps> = async (app, deps) => {
  // The signature covers the exact bytes sent: the body is kept as bytes in this route's context, never re-serialised.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: STRIPE_EVENT_MAX_BYTES }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/webhooks/stripe',
    {
      bodyLimit: STRIPE_EVENT_MAX_BYTES,
      schema: {
        operationId: 'receiveStripeEvent',
        summary: 'Receive a Stripe event (billing webhook)',
        description:
          "Stripe's webhook endpoint for self-serve plans, present only when `STRIPE_SECRET_KEY` is set. The " +
          '`Stripe-Signature` header is ' +
          ("verified over the raw body with the endpoint's signing secret (`STRIPE_WEBHOOK_SECRET`); a wrong, " +
            'stale (over 5 minutes) or ') +
          ('missing signature is `400 invalid_webhook_signature` and changes nothing. Acts on ' +
            '`checkout.session.completed` and ') +
          ('`customer.subscription.created` / `.updated` / `.deleted`, each once by event id, reading the ' +
            'subscription back from Stripe so ') +
          'events that arrive late or twice cannot undo a newer state; other events are acknowledged and ignored. ' +
          'A `503` (Stripe unreachable) makes Stripe deliver the event again. See docs/billing.md.',
        tags: ['billing'],
        security: [],
        'x-document': {
          requestBody: {
            description: 'A Stripe Event object exactly as Stripe sent it (the signature covers these bytes).',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'type', 'data'],
                  properties: { id: { type: 'string' }, type: { type: 'string' }, data: { type: 'object' } },
                },
              },
            },
          },
        },
        headers: z.looseObject({
          'stripe-signature': z.string().max(8192).optional().describe('t=<timestamp>,v1=<HMAC-SHA256 of "t.body">'),
        }),
        response: {
          200: Received,
          ...problemResponses(['invalid_webhook_signature', 'invalid_request', 'payload_too_large', ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers['stripe-signature'];
      if (Array.isArray(signature)) throw new ApiError('invalid_webhook_signature', 'send one Stripe-Signature header');
      const event = deps.billing.verifyEvent(body, signature, deps.clock());
      // A plan the event changes is recorded as Stripe's doing, from the address that delivered it.
      const context = { actor: STRIPE_ACTOR, ip: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null };
      const outcome = await handleBillingEvent(deps, event, context, request.log);
      request.log.info({ stripeEvent: event.id, kind: event.kind, outcome }, 'stripe event');
      return { received: true as const, outcome };
    },
  );
};
