// The origin short URLs are built on: PUBLIC_URL, or the address and port the server listens on; never the request's
// Host.
import type { FastifyRequest } from 'fastify';
import { trimTrailing } from '../domain/trim-trailing.js';
import { vanityUrl } from '../domain/custom-domain.js';
import type { DynamicCode } from '../domain/dynamic-code.js';

/** What a dynamic code encodes: its custom-domain URL, or this service's `/r/` URL. */
export function codeShortUrl(code: Pick<DynamicCode, 'slug' | 'vanity'>, shortUrlBase: string): string {
  return code.vanity ? vanityUrl(code.vanity) : `${shortUrlBase}/r/${code.slug}`;
}

/**
 * The socket's own end: the listening address the request reached (without a listening socket, as under inject:
 * localhost).
 */
export function listeningOrigin(address: string | undefined, port: number | undefined): string {
  if (!address || !port) return 'http://localhost';
  const plain = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return `http://${plain.includes(':') ? `[${plain}]` : plain}:${port}`;
}

/** This service's own hostnames: PUBLIC_URL's (none without it). They can never be a custom domain. */
export function ownHostnames(publicUrl: string | undefined): string[] {
  return publicUrl ? [new URL(publicUrl).hostname.toLowerCase()] : [];
}

/**
 * A Host header is the client's to choose: echoing it would let anyone make a code encode their own origin.
 * Without PUBLIC_URL (the server warns at start) the embedded default serves what it listens on.
 */
export function shortUrlBase(publicUrl: string | undefined, request: FastifyRequest): string {
  if (publicUrl) return trimTrailing(publicUrl, '/');
  const socket = request.raw.socket as { localAddress?: string; localPort?: number } | undefined;
  return listeningOrigin(socket?.localAddress, socket?.localPort);
}
