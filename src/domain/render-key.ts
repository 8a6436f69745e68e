// The canonical key of a render: names the exact image bytes, so it serves as strong ETag and cache key.
import { createHash } from 'node:crypto';
import { designKey } from './branding.js';
import type { RenderSpec } from './render-options.js';

/** Bumped whenever output bytes change for the same spec (encoder, writer settings). */
export const RENDER_VERSION = 2;

/** Rendering is deterministic for a given RENDER_VERSION, so equal keys mean byte-identical images. */
export function renderKey(spec: RenderSpec): string {
  const canonical = JSON.stringify([RENDER_VERSION, spec.format, spec.size, spec.margin, spec.errorCorrection, spec.darkColor, spec.lightColor, spec.payload]) + (spec.branding ? designKey(spec.branding) : '');
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 27);
}

/** RFC 9110 If-None-Match with weak comparison: true when the client already holds `etag`. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
