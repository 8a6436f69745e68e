// Port: turns an uploaded image into the PNG we store — decoded, bounded, re-encoded, metadata gone.

export interface NormalisedLogo {
  png: Uint8Array;
  width: number;
  height: number;
}

export const LOGO_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type LogoMediaType = (typeof LOGO_MEDIA_TYPES)[number];

/**
 * Contract: returns a PNG of at most LOGO_MAX_SIDE pixels a side with no metadata (EXIF, XMP, ICC,
 * text chunks), or throws ApiError `invalid_request` when the bytes are not a decodable image of
 * the declared type (an SVG or anything else dressed as one included).
 */
export interface LogoNormaliser {
  normalise(bytes: Uint8Array, mediaType: LogoMediaType): Promise<NormalisedLogo>;
  /** A stored logo (our own PNG) scaled to fit `side` pixels, as PNG: the portal's list shows these. */
  thumbnail(png: Uint8Array, side: number): Promise<Uint8Array>;
}

/**
 * Logos are drawn at a fraction of a code at most 2048 px wide: 512 px is plenty, and bounds what each render copies.
 */
export const LOGO_MAX_SIDE = 512;
/** Largest upload accepted (the route's body limit). */
export const LOGO_MAX_UPLOAD_BYTES = 1_048_576;
