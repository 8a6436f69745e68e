// Load shedding with @fastify/under-pressure: past the event-loop or memory limits, 503 overloaded with Retry-After;
// liveness is never shed.
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';
import { PROBLEM_CONTENT_TYPE, toProblem } from './problem-details.js';

export interface OverloadGuardOptions {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
}

/** The error a shed request is answered with (readiness reports the same while the pressure lasts). */
export function overloaded(): ApiError {
  return new ApiError('overloaded', 'the server is under heavy load; retry shortly', { retryAfterSeconds: 2 });
}

/**
 * A route whose `config` carries this is never shed (under-pressure asks the route's own handler first;
 * `undefined` lets the request through). /healthz uses it: a liveness probe that failed whenever the
 * process is busy would make an orchestrator restart healthy instances in a storm.
 */
export const NEVER_SHED = { pressureHandler: (): undefined => undefined };

type PressureHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  type: string,
  value: number | undefined,
) => unknown;

/**
 * under-pressure's types say `void`, but its handlePressure sends any non-null value returned and ends the request
 * there.
 */
function sendsWhatItReturns(handler: PressureHandler): FastifyUnderPressureOptions['pressureHandler'] {
  return handler as FastifyUnderPressureOptions['pressureHandler'];
}

async function overloadGuard(app: FastifyInstance, options: OverloadGuardOptions): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    // under-pressure sends what this returns and ends the request there; returning nothing would let the request
    // go on to its route after the 503 (a second reply: ERR_HTTP_HEADERS_SENT).
    pressureHandler: sendsWhatItReturns((request, reply, type, value) => {
      request.log.warn({ type, value }, 'shedding load');
      const error = overloaded();
      request.problemCode = error.code;
      reply.code(error.status).header('Retry-After', String(error.retryAfterSeconds)).type(PROBLEM_CONTENT_TYPE);
      return toProblem(error, request);
    }),
  });
}

export default fp(overloadGuard, { name: 'overload-guard' });
