// Signing keys and signed image URLs for tests: create a key over the API, sign a URL as a customer would (no network).
import type { FastifyInstance } from 'fastify';
import { signedImagePath } from '../../src/domain/signed-url.js';

export const SIGNING_KEYS_URL = '/api/v1/QRManager/signing-keys';

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
