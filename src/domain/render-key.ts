// The canonical names of a render: the image cache's key, and the strong ETag a client revalidates with.
import { createHash } from 'node:crypto';
import { designKey } from './branding.js';
import type { RenderSpec } from './render-options.js';

/** Bumped whenever output bytes change for the same spec (encoder, writer settings). */
export const RENDER_VERSION = 4;

/**
 * Rendering is deterministic for a given RENDER_VERSION: equal identities mean byte-identical images. Kept in memory
 * only, so not hashed.
 */
export function renderIdentity(spec: RenderSpec): string {
  return (
    `${RENDER_VERSION}|${spec.format}|${spec.size}|${spec.margin}|${spec.errorCorrection}|${spec.darkColor}|` +
    `${spec.lightColor}|${spec.eci === true ? 'eci' : ''}|${spec.payload}` +
    brandingSuffix(spec) +
    printSuffix(spec)
  );
}

/**
 * Strong ETag: the code's fingerprint (the SHA-256 of type and payload the meter needs anyway, so a
 * request hashes once) and the render options spelled out.
 */
export function renderTag(fingerprint: string, spec: RenderSpec): string {
  return (
    `"${fingerprint.slice(0, 32)}-${spec.format}-${spec.size}-${spec.margin}-${spec.errorCorrection}-` +
    `${spec.darkColor.slice(1)}-${spec.lightColor.slice(1)}${spec.eci === true ? '-eci' : ''}-v${RENDER_VERSION}` +
    `${spec.branding ? `-${designDigest(spec.branding)}` : ''}${printSuffix(spec).replaceAll('|', '-')}"`
  );
}

/** RFC 9110 If-None-Match with weak comparison: true when the client already holds `etag`. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/**
 * Physical size, resolution and CMYK inks change the file (page size, pHYs, colour operators); absent, nothing is
 * added.
 */
function printSuffix(spec: RenderSpec): string {
  if (spec.sizeMm === undefined && spec.dpi === undefined && spec.inks === undefined) return '';
  const ink = (parts: readonly number[] | undefined) => (parts ? parts.join('.') : '');
  return `|mm${spec.sizeMm ?? ''}|dpi${spec.dpi ?? ''}|cmyk${ink(spec.inks?.dark)}_${ink(spec.inks?.light)}`;
}

/** A branded design changes the image, so its key is part of the identity. */
function brandingSuffix(spec: RenderSpec): string {
  return spec.branding ? `|${designKey(spec.branding)}` : '';
}

/** A design's short digest: an ETag may not carry the design's JSON (quotes). */
function designDigest(branding: NonNullable<RenderSpec['branding']>): string {
  return createHash('sha256').update(designKey(branding)).digest('base64url').slice(0, 16);
}
