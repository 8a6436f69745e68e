// The QR module matrix for a payload, from the `qr` encoder (chosen over `qrcode` by bench/render-path.ts: ~10x faster).
import encodeQR from 'qr';
import { BYTE_CAPACITY } from '../domain/qr-capacity.js';
import type { ErrorCorrectionLevel } from '../domain/render-options.js';

export interface QrMatrix {
  /** Modules per side, without quiet zone. */
  size: number;
  /** Row-major, one byte per module: 1 dark, 0 light. */
  modules: Uint8Array;
}

export { BYTE_CAPACITY };

const ECC_NAMES = { L: 'low', M: 'medium', Q: 'quartile', H: 'high' } as const;

export class PayloadTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`payload exceeds QR capacity (${limit} bytes)`);
  }
}

export function buildMatrix(payload: string, errorCorrection: ErrorCorrectionLevel): QrMatrix {
  let rows: boolean[][];
  try {
    // border 1 is the encoder's minimum; it is stripped below and the quiet zone is added by the layout.
    rows = encodeQR(payload, 'raw', { ecc: ECC_NAMES[errorCorrection], border: 1 });
  } catch (error) {
    if (error instanceof Error && error.message === 'Capacity overflow') throw new PayloadTooLongError(BYTE_CAPACITY[errorCorrection]);
    throw error;
  }
  const size = rows.length - 2;
  const modules = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    const row = rows[y + 1]!;
    for (let x = 0; x < size; x++) if (row[x + 1]) modules[y * size + x] = 1;
  }
  return { size, modules };
}
