// Is this request from the machine itself? Decided by the socket, never by headers a client can set.
import type { FastifyRequest } from 'fastify';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * True only for a direct connection from loopback. A request that names a forwarding proxy is
 * refused: behind a reverse proxy on the same host every client would otherwise look local.
 */
export function isDirectLoopbackRequest(request: FastifyRequest): boolean {
  const headers = request.headers;
  if (headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined || headers['x-real-ip'] !== undefined) return false;
  return LOOPBACK.has(request.socket.remoteAddress ?? '');
}
