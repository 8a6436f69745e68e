// Load shedding with @fastify/under-pressure: past the event-loop or memory limits, 503 overloaded with Retry-After.
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';
import { sendProblem } from './problem-details.js';

export interface OverloadGuardOptions {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
}

async function overloadGuard(app: FastifyInstance, options: OverloadGuardOptions): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    pressureHandler: (request, reply, type, value) => {
      request.log.warn({ type, value }, 'shedding load');
      sendProblem(reply, request, new ApiError('overloaded', 'the server is under heavy load; retry shortly', { retryAfterSeconds: 2 }));
    },
  });
}

export default fp(overloadGuard, { name: 'overload-guard' });
