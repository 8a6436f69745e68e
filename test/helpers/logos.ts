// Logo fixtures made with sharp (a two-colour mark, and the same with EXIF and text metadata) and an upload helper.
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';

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
