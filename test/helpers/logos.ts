// Logo fixtures made with sharp (a two-colour mark, and the same with EXIF and text metadata) and upload helpers.
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { beforeAll } from 'vitest';
import type { PlanId } from '../../src/domain/plan-catalogue.js';
import type { TestApp } from './app.js';

const MARK_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="160"><rect width="240" height="160" rx="24" fill="#e63946"/><circle cx="120" cy="80" r="52" fill="#1d3557"/></svg>',
);

export function logoPng(): Promise<Buffer> {
  return sharp(MARK_SVG).png().toBuffer();
}

/** A JPEG carrying EXIF (camera, GPS-like comment) that the upload must strip. */
export function logoJpegWithExif(): Promise<Buffer> {
  return sharp(MARK_SVG)
    .flatten({ background: '#ffffff' })
    .jpeg()
    .withExif({ IFD0: { Make: 'SecretCam', Copyright: 'private-metadata-marker' } })
    .toBuffer();
}

export const LOGOS_URL = '/api/v1/QRManager/logos';

export function uploadLogo(app: FastifyInstance, key: string, body: Buffer | string, contentType: string) {
  return app.inject({
    method: 'POST',
    url: LOGOS_URL,
    headers: { 'content-type': contentType, 'x-api-key': key },
    payload: body,
  });
}

/**
 * A caller on `plan` who has uploaded the mark logo: made by a beforeAll this registers (after the suite's app is built
 * by useTestApp), so read it inside hooks and tests.
 */
export function useCallerWithLogo(t: TestApp, plan: PlanId): { key: string; logoId: string } {
  const caller = { key: '', logoId: '' };
  beforeAll(async () => {
    caller.key = (await t.newCaller(plan)).key;
    caller.logoId = (await uploadLogo(t.app, caller.key, await logoPng(), 'image/png')).json().id;
  });
  return caller;
}
