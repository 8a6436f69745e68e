// LogoNormaliser on sharp: magic bytes checked first (sharp would happily read an SVG), the header's pixel count next,
// then decode, resize, re-encode, bounded in time and in decodes at once.
import { ApiError } from '../../domain/errors.js';
import {
  LOGO_MAX_SIDE,
  type LogoMediaType,
  type LogoNormaliser,
  type NormalisedLogo,
} from '../../domain/ports/logo-normaliser.js';
import { loadSharp } from '../../render/imaging-libraries.js';

/**
 * File signatures of the accepted types; anything else (SVG, GIF, HTML, a polyglot) is refused before any decoder sees
 * it.
 */
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
/**
 * Decompression bombs: a small file may declare a huge canvas. The header is read first (no pixels decoded) and
 * anything larger is refused; sharp is held to the same figure. 4096 × 4096 covers any logo (it is scaled to 512 px).
 */
export const MAX_LOGO_PIXELS = 4096 * 4096;
/** A decode still running after this is abandoned (libvips stops the pipeline). */
const DECODE_TIMEOUT_SECONDS = 3;
/** Decodes at once in this process (each on libuv's pool, off the event loop): memory stays bounded whoever uploads. */
const DECODES_AT_ONCE = 2;
/** Uploads waiting for a decode slot before the next is refused 503 overloaded. */
const DECODES_WAITING = 16;

function notAnImage(mediaType: LogoMediaType): ApiError {
  return new ApiError(
    'invalid_request',
    `the body is not a ${mediaType} image; upload a PNG, JPEG or WebP logo with its own Content-Type`,
    {
      fields: [{ field: 'body', detail: `must be a ${mediaType} image` }],
    },
  );
}

function tooManyPixels(width: number, height: number): ApiError {
  return new ApiError(
    'invalid_request',
    `the image is ${width} × ${height} pixels; a logo may have at most ${MAX_LOGO_PIXELS} pixels (4096 × 4096)`,
    {
      fields: [{ field: 'body', detail: `at most ${MAX_LOGO_PIXELS} pixels` }],
      extensions: { maxPixels: MAX_LOGO_PIXELS },
    },
  );
}

export class SharpLogoNormaliser implements LogoNormaliser {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  async normalise(bytes: Uint8Array, mediaType: LogoMediaType): Promise<NormalisedLogo> {
    if (!hasSignature(bytes, mediaType)) throw notAnImage(mediaType);
    await this.#slot();
    try {
      return await this.#decode(bytes, mediaType);
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  async thumbnail(png: Uint8Array, side: number): Promise<Uint8Array> {
    const data = await loadSharp()(png, { limitInputPixels: MAX_LOGO_PIXELS })
      .resize(side, side, { fit: 'inside', withoutEnlargement: true })
      .png({ compressionLevel: 9 })
      .toBuffer();
    return new Uint8Array(data);
  }

  async #slot(): Promise<void> {
    if (this.#running < DECODES_AT_ONCE) {
      this.#running++;
      return;
    }
    if (this.#waiting.length >= DECODES_WAITING) {
      throw new ApiError('overloaded', 'too many logo uploads are being decoded; retry shortly', {
        retryAfterSeconds: 2,
      });
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
  }

  async #decode(bytes: Uint8Array, mediaType: LogoMediaType): Promise<NormalisedLogo> {
    try {
      // metadata() reads the header only: the declared size is refused before a pixel is decoded.
      const metadata = await loadSharp()(bytes, {
        limitInputPixels: false,
        failOn: 'error',
        animated: false,
      }).metadata();
      if (metadata.format !== SHARP_FORMAT[mediaType]) throw notAnImage(mediaType);
      const { width = 0, height = 0 } = metadata;
      if (width * height > MAX_LOGO_PIXELS) throw tooManyPixels(width, height);
      const image = loadSharp()(bytes, { limitInputPixels: MAX_LOGO_PIXELS, failOn: 'error', animated: false }).timeout(
        {
          seconds: DECODE_TIMEOUT_SECONDS,
        },
      );
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
