// How much a QR code can hold: the byte-mode capacity of version 40 at each error correction level.
import type { ErrorCorrectionLevel } from './render-options.js';

/** The longest UTF-8 payload that always fits (byte mode, version 40). */
export const BYTE_CAPACITY: Record<ErrorCorrectionLevel, number> = { L: 2953, M: 2331, Q: 1663, H: 1273 };
