// Is this request from the machine itself, addressed to it by a local name? Decided by the socket and the Host, never
// by forwarding headers.
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
// The names a browser on this machine uses for it. Any other name that reaches a loopback socket
// is DNS rebinding (a page's own hostname pointed at 127.0.0.1) or a forwarder, not the developer.
const LOCAL_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The Host header names this machine: localhost, 127.0.0.1 or [::1], with any port. */
export function hasLocalHost(request: FastifyRequest): boolean {
  return LOCAL_HOST.test(request.headers.host ?? '');
}

/**
 * True only for a direct connection from loopback that names this machine in its Host. A request
 * that names a forwarding proxy is refused: behind a reverse proxy on the same host every client
 * would otherwise look local.
 */
export function isDirectLoopbackRequest(request: FastifyRequest): boolean {
  const headers = request.headers;
  if (headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined || headers['x-real-ip'] !== undefined)
    return false;
  return LOOPBACK.has(request.socket.remoteAddress ?? '') && hasLocalHost(request);
}

/**
 * The browser says the request comes from a page of this same origin: `Sec-Fetch-Site: same-origin`,
 * or else an `Origin` equal to this request's own. Browsers send one or both on every POST; a request
 * with neither is not from a browser page of ours, so it is refused too.
 */
export function isSameOriginRequest(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  if (
    origin === undefined ||
    !URL.canParse(origin) ||
    !URL.canParse(`${request.protocol}://${request.headers.host ?? ''}`)
  )
    return false;
  // Both through URL, so a default port written on one side and left out on the other still compares equal.
  return new URL(origin).origin === new URL(`${request.protocol}://${request.headers.host}`).origin;
}

/**
 * onRequest hook for a portal that signs in locally: every session there came from a browser on
 * this machine, so a state-changing request addressed to any other name is refused before the
 * session is read (DNS rebinding, or a forwarder that adds no X-Forwarded-For).
 */
export async function refuseForeignHostWrites(request: FastifyRequest): Promise<void> {
  if (UNSAFE_METHODS.has(request.method) && !hasLocalHost(request)) {
    throw new ApiError(
      'forbidden',
      'this portal signs in only on this machine: open it at http://localhost (or 127.0.0.1) instead of through ' +
        'another host name',
    );
  }
}
