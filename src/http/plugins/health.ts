// Liveness (/healthz: the process answers) and readiness (/readyz: every dependency answers in time).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.js';
import { problemResponses } from '../openapi/problem.schema.js';
import { NEVER_SHED } from './overload-guard.js';
import { sendProblem } from './problem-details.js';

export interface HealthOptions {
  probes: Record<string, () => Promise<void>>;
  /** A dependency slower than this counts as down: a readiness check must not hang the load balancer. */
  probeTimeoutMs?: number;
  /** True once shutdown has begun: the instance reports not-ready so load balancers stop sending it work. */
  draining?: () => boolean;
}

type CheckResult = 'ok' | `failed: ${string}`;

async function runProbe(probe: () => Promise<void>, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'ok';
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`;
  } finally {
    clearTimeout(timer);
  }
}

const Checks = z.record(z.string(), z.string()).describe('Each dependency: `ok` or `failed: <reason>`.');

async function health(app: FastifyInstance, options: HealthOptions): Promise<void> {
  const timeoutMs = options.probeTimeoutMs ?? 2_000;

  app.get(
    '/healthz',
    {
      // Liveness is never shed (readiness is: a busy instance reports 503 overloaded there and keeps running).
      config: NEVER_SHED,
      schema: {
        operationId: 'liveness',
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        security: [],
        response: { 200: z.object({ status: z.literal('ok') }), ...problemResponses(['unavailable']) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'readiness',
        summary: 'Readiness: every dependency (store, Redis when configured, render pool) answers',
        tags: ['operations'],
        security: [],
        response: {
          200: z.object({ status: z.literal('ready'), checks: Checks }),
          ...problemResponses(['unavailable']),
        },
      },
    },
    async (request, reply) => {
      if (options.draining?.()) {
        return sendProblem(
          reply,
          request,
          new ApiError('unavailable', 'not ready: shutting down', { retryAfterSeconds: 5, extensions: { checks: {} } }),
        );
      }
      const names = Object.keys(options.probes);
      const results = await Promise.all(names.map((name) => runProbe(options.probes[name]!, timeoutMs)));
      const checks = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
      const failing = names.filter((name) => checks[name] !== 'ok');
      if (failing.length === 0) return { status: 'ready' as const, checks };
      return sendProblem(
        reply,
        request,
        new ApiError('unavailable', `not ready: ${failing.join(', ')} failing`, {
          retryAfterSeconds: 5,
          extensions: { checks },
        }),
      );
    },
  );
}

export default fp(health, { name: 'health' });
