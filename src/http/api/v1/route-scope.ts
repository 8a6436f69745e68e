// Where an API route names the key scope it needs: its OpenAPI security requirement, read by the API-key hook.
import type { FastifySchema } from 'fastify';
import { isKeyScope, type KeyScope } from '../../../domain/key-scope.js';

/** A route's `schema.security`: the API key, holding this scope (OpenAPI 3.1 lets an apiKey requirement name roles). */
export function keyWithScope(scope: KeyScope): Array<{ apiKey: KeyScope[] }> {
  return [{ apiKey: [scope] }];
}

/** The one scope a route declared through `keyWithScope`, or undefined when it declared none (or more than one). */
export function routeScope(schema: FastifySchema | undefined): KeyScope | undefined {
  const security = (schema as { security?: unknown } | undefined)?.security;
  if (!Array.isArray(security) || security.length !== 1) return undefined;
  const scopes = (security[0] as { apiKey?: unknown }).apiKey;
  if (!Array.isArray(scopes) || scopes.length !== 1 || typeof scopes[0] !== 'string' || !isKeyScope(scopes[0]))
    return undefined;
  return scopes[0];
}
