// A worker thread reading QR codes with jsQR: RGBA pixels in (moved, not copied), the text or null out. Used by
// decode.ts for many images at once.
import { parentPort } from 'node:worker_threads';
import jsQR from 'jsqr';

parentPort.on('message', ({ id, data, width, height }) => {
  const code = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width, height);
  parentPort.postMessage({ id, text: code ? code.data : null });
});
