// Port: reads the QR codes in an image (a photo of a print, a design of the caller's own), with every reader the service runs.
/** The readers the service runs in process; each code says what each of them read (null: that reader found no code). */
export const DECODE_READERS = ['zxing', 'zbar', 'jsqr'] as const;
export type DecodeReader = (typeof DECODE_READERS)[number];

export interface DecodedCode {
  text: string;
  version: number | null;
  errorCorrection: 'L' | 'M' | 'Q' | 'H' | null;
  readers: Record<DecodeReader, string | null>;
}

export type DecodeOutcome = { ok: true; codes: DecodedCode[] } | { ok: false; reason: 'unreadable_image' | 'too_many_pixels'; detail: string };

/**
 * Contract: `decode` never runs its CPU work on the caller's event loop; an image over `maxPixels` is refused
 * before its pixels are decoded; an image with no code answers `{ ok: true, codes: [] }`.
 */
export interface QrDecoder {
  decode(image: Uint8Array, maxPixels: number): Promise<DecodeOutcome>;
  close(): Promise<void>;
}
