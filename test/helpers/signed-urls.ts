// Signing keys and signed image URLs for tests: create a key over the API, sign a URL as a customer would (no network).
import type { FastifyInstance } from 'fastify';
import { signedImagePath } from '../../src/domain/signed-url.js';

export const SIGNING_KEYS_URL = '/api/v1/QRManager/signing-keys';

/** The worked example of docs/signed-urls.md: its signing key, its parameters but the expiry, and the expiry. */
export const DOCS_EXAMPLE = {
  key: { id: 'sk_3mLd0Qk2Vt9xY7bN1cRa', secret: 'qrs_bXktc2lnbmluZy1zZWNyZXQtZm9yLWRvY3MtZXhhbXBsZQ' },
  params: {
    type: 'url',
    content: 'https://example.com/menu?table=4&lang=fr',
    size: 300,
    darkColor: '#1A2B3C',
    'frame.text': "Scan me (it's free)!",
  },
  exp: 1893456000,
};

export async function newSigningKey(
  app: FastifyInstance,
  apiKey: string,
  name = 'test',
): Promise<{ id: string; secret: string }> {
  const res = await app.inject({
    method: 'POST',
    url: SIGNING_KEYS_URL,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    payload: { name },
  });
  if (res.statusCode !== 201) throw new Error(`signing key not created: ${res.statusCode} ${res.body}`);
  return res.json();
}

export function signedUrl(
  key: { id: string; secret: string },
  format: string,
  params: Record<string, string | number | boolean>,
): string {
  return signedImagePath(key.id, key.secret, format, params);
}
