// The origin short URLs are built on: PUBLIC_URL, or in the embedded default the address the request reached.
import type { FastifyRequest } from 'fastify';
import { trimTrailing } from '../domain/trim-trailing.js';

// A host name or IPv4 with optional port, or a bracketed IPv6: anything else in Host is not echoed into a code.
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export function shortUrlBase(publicUrl: string | undefined, request: FastifyRequest): string {
  if (publicUrl) return trimTrailing(publicUrl, '/');
  const host = HOST.test(request.host) ? request.host : 'localhost';
  return `${request.protocol}://${host}`;
}
