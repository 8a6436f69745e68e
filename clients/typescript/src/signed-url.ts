// signedImageUrl: a signed image URL (GET /i/{keyId}/{format}), made locally with a signing key — no network, no API
// key.
import { createHmac } from 'node:crypto';
import type { paths } from './generated/schema.js';

/** The image formats, as the service's OpenAPI document lists them (png, webp, svg, pdf, eps). */
export type ImageFormat =
  paths['/api/v1/QRManager/generate']['post']['requestBody']['content']['application/json']['outputFormat'];

/** RFC 3986 percent-encoding: encodeURIComponent plus `!'()*`. */
function enc(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export interface SignedImageUrlOptions {
  /** The service's origin, e.g. `https://qr.example.com` (no trailing slash). */
  baseUrl: string;
  /** The signing key's id (`sk_…`) and its secret (`qrs_…`), from POST /api/v1/QRManager/signing-keys. */
  keyId: string;
  secret: string;
  /** png, webp, svg, pdf or eps (as outputFormat); pdf and eps take sizeMm and cmyk() colours (docs/print.md). */
  format: ImageFormat;
  /**
   * Any option of POST generate (nested ones dotted: `logo.id`, `frame.text`), `content` (structured content as a JSON
   * string), `type`, `design`.
   */
  params: Record<string, string | number | boolean>;
  /** Expiry: a Date, or unix seconds. Past it the URL answers 410 url_expired. */
  expires?: Date | number;
}

/**
 * The canonical string is the path, `?`, every parameter but `sig` as `enc(name)=enc(value)` sorted by name then
 * value, joined by `&`; `sig` is base64url (no padding) of HMAC-SHA256(secret, canonical string). See
 * docs/signed-urls.md.
 */
export function signedImageUrl(options: SignedImageUrlOptions): string {
  const params: Record<string, string> = Object.fromEntries(
    Object.entries(options.params).map(([name, value]) => [name, String(value)]),
  );
  if (options.expires !== undefined) {
    params.exp = String(
      options.expires instanceof Date ? Math.floor(options.expires.getTime() / 1000) : Math.floor(options.expires),
    );
  }
  const pairs = Object.entries(params)
    .map(([name, value]) => [enc(name), enc(value)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const canonical =
    `/i/${enc(options.keyId)}/${enc(options.format)}?` +
    `${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`;
  const sig = createHmac('sha256', options.secret).update(canonical).digest('base64url');
  return `${options.baseUrl.replace(/\/+$/, '')}${canonical}&sig=${sig}`;
}
