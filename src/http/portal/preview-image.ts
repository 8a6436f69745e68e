// The portal's own pictures of codes (thumbnails, previews): drawn by the renderer directly, never metered, as PNG.
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { RenderSpec } from '../../domain/render-options.js';
import type { RenderCaller, Renderer } from '../../domain/ports/renderer.js';

/** The spec drawn at its size, or, for a code too dense for that many pixels, at the smallest size that fits. */
export async function renderFitting(renderer: Renderer, spec: RenderSpec, caller: RenderCaller): Promise<Uint8Array> {
  try {
    return (await renderer.render(spec, caller)).bytes;
  } catch (error) {
    const minimumSize = error instanceof ApiError ? error.extensions?.minimumSize : undefined;
    if (typeof minimumSize !== 'number') throw error;
    return (await renderer.render({ ...spec, size: minimumSize }, caller)).bytes;
  }
}

/** A PNG answered with the page's caching rule (`private, max-age=…` or `no-store`). */
export function sendPng(reply: FastifyReply, png: Uint8Array, cacheControl: string): FastifyReply {
  return reply
    .header('Content-Type', 'image/png')
    .header('Cache-Control', cacheControl)
    .send(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
}
