// Port: reads the QR codes in an image (a photo of a print, a design of the caller's own), with every reader the
// service runs.
/** The readers the service runs in process; each code says what each of them read (null: that reader found no code). */
export const DECODE_READERS = ['zxing', 'zbar', 'jsqr'] as const;
export type DecodeReader = (typeof DECODE_READERS)[number];

export interface DecodedCode {
  text: string;
  version: number | null;
  errorCorrection: 'L' | 'M' | 'Q' | 'H' | null;
  readers: Record<DecodeReader, string | null>;
}

/** Which readers looked at the image, and which were not run because the decode's time budget had run out. */
export interface ReadersRun {
  readersRan: DecodeReader[];
  readersSkipped: DecodeReader[];
}

export type DecodeOutcome =
  | ({ ok: true; codes: DecodedCode[] } & ReadersRun)
  | { ok: false; reason: 'unreadable_image' | 'too_many_pixels'; detail: string };

export interface DecodeRequest {
  image: Uint8Array;
  maxPixels: number;
  /** Whose image it is: each account has its own share of the decoder, so none queues behind another's flood. */
  accountId: string;
}

export interface DecodeQueueStats {
  running: number;
  waiting: number;
  accounts: number;
}

/**
 * Contract: `decode` never runs its CPU work on the caller's event loop; an image over `maxPixels` is refused
 * before its pixels are decoded; an image with no code answers `{ ok: true, codes: [] }`. ZXing always reads the
 * image; a slower reader not yet started when the decode's time budget runs out is skipped and named in
 * `readersSkipped`. An account already holding its share of the decoder is refused (429 `too_many_decodes`), and a
 * full decoder (503 `overloaded`), both with Retry-After.
 */
export interface QrDecoder {
  decode(request: DecodeRequest): Promise<DecodeOutcome>;
  /** Images being decoded and waiting, and the accounts they belong to (gauges). */
  stats(): DecodeQueueStats;
  close(): Promise<void>;
}
