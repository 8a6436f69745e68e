// The QR module matrix for a payload, from the `qrcode` encoder.
import QRCode from 'qrcode';
import type { ErrorCorrectionLevel } from '../domain/render-options.js';

export interface QrMatrix {
  /** Modules per side, without quiet zone. */
  size: number;
  /** Row-major, one byte per module: 1 dark, 0 light. */
  modules: Uint8Array;
}

/** Byte-mode capacity of a version 40 code: the longest UTF-8 payload that always fits. */
export const BYTE_CAPACITY: Record<ErrorCorrectionLevel, number> = { L: 2953, M: 2331, Q: 1663, H: 1273 };

export class PayloadTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`payload exceeds QR capacity (${limit} bytes)`);
  }
}

export function buildMatrix(payload: string, errorCorrection: ErrorCorrectionLevel): QrMatrix {
  try {
    const qr = QRCode.create(payload, { errorCorrectionLevel: errorCorrection });
    return { size: qr.modules.size, modules: qr.modules.data as unknown as Uint8Array };
  } catch (error) {
    if (error instanceof Error && /too big/i.test(error.message)) throw new PayloadTooLongError(BYTE_CAPACITY[errorCorrection]);
    throw error;
  }
}
