// Every API route refuses query parameters it does not know (400 invalid_request naming them), as bodies refuse fields.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { problemResponses } from '../openapi/problem.schema.js';

async function strictQuery(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as {
      querystring?: unknown;
      response?: Record<string | number, unknown>;
      hide?: boolean;
    };
    const declared = schema.querystring;
    // A route without a query schema takes no query at all; one with an object schema takes only its keys.
    if (declared === undefined) schema.querystring = z.strictObject({});
    else if (declared instanceof z.ZodObject) schema.querystring = declared.strict();
    else return;
    if (schema.response && schema.response[400] === undefined && schema.response['400'] === undefined) {
      schema.response[400] = problemResponses(['invalid_request'])[400];
    }
  });
}

/** Registered in a context before its routes: it applies to the routes declared after it there. */
export default fp(strictQuery, { name: 'strict-query' });
