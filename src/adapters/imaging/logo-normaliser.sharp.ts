// LogoNormaliser on sharp: magic bytes checked first (sharp would happily read an SVG), then decode, resize, re-encode.
import sharp from 'sharp';
import { ApiError } from '../../domain/errors.js';
import { LOGO_MAX_SIDE, type LogoMediaType, type LogoNormaliser, type NormalisedLogo } from '../../domain/ports/logo-normaliser.js';

/** File signatures of the accepted types; anything else (SVG, GIF, HTML, a polyglot) is refused before any decoder sees it. */
function hasSignature(bytes: Uint8Array, mediaType: LogoMediaType): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (mediaType) {
    case 'image/png':
      return b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'image/jpeg':
      return b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
    case 'image/webp':
      return b.length > 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP';
  }
}

const SHARP_FORMAT: Record<LogoMediaType, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };
/** Decompression bombs: a small file may declare a huge canvas; sharp refuses to decode past this many pixels. */
const MAX_INPUT_PIXELS = 40_000_000;

function notAnImage(mediaType: LogoMediaType): ApiError {
  return new ApiError('invalid_request', `the body is not a ${mediaType} image; upload a PNG, JPEG or WebP logo with its own Content-Type`, {
    fields: [{ field: 'body', detail: `must be a ${mediaType} image` }],
  });
}

export class SharpLogoNormaliser implements LogoNormaliser {
  async normalise(bytes: Uint8Array, mediaType: LogoMediaType): Promise<NormalisedLogo> {
    if (!hasSignature(bytes, mediaType)) throw notAnImage(mediaType);
    try {
      const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', animated: false });
      const metadata = await image.metadata();
      if (metadata.format !== SHARP_FORMAT[mediaType]) throw notAnImage(mediaType);
      // rotate() applies the EXIF orientation before the metadata goes; sharp writes none unless asked (withMetadata).
      const { data, info } = await image
        .rotate()
        .resize(LOGO_MAX_SIDE, LOGO_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
        .png({ compressionLevel: 9 })
        .toBuffer({ resolveWithObject: true });
      return { png: new Uint8Array(data), width: info.width, height: info.height };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw notAnImage(mediaType);
    }
  }
}
