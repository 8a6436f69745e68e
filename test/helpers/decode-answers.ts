// The answer a decode gives for an image holding one code, as the decode route and decodeImage tests expect it.
import { expect } from 'vitest';

/**
 * One code read as `text` at `errorCorrection`: by all three readers, or by ZXing alone when the time budget left zbar
 * and jsQR skipped (each then reads null and is listed as skipped).
 */
export function oneCodeDecoded(text: string, errorCorrection: string, readBy: 'all readers' | 'zxing alone') {
  const all = readBy === 'all readers';
  return {
    codes: [
      {
        text,
        version: expect.any(Number),
        errorCorrection,
        readers: { zxing: text, zbar: all ? text : null, jsqr: all ? text : null },
      },
    ],
    readersRan: all ? ['zxing', 'zbar', 'jsqr'] : ['zxing'],
    readersSkipped: all ? [] : ['zbar', 'jsqr'],
  };
}
