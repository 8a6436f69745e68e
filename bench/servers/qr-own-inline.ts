// Baseline (e-qr): row e with `qr`'s own encoder (encodeQR, one byte segment) for the matrix instead of our segment
// planner and codewords; the same 1-bit PNG writer at node:zlib level 1, on the event loop, no auth or metering.
import Fastify from 'fastify';
import { encodeQR } from 'qr';
import { layoutFor } from '../../src/render/layout.js';
import { writePng } from '../../src/render/png-writer.js';

/** `qr`'s modules as our matrix; its smallest quiet zone (one module) is cut off, our layout draws its own. */
function qrOwnMatrix(content: string): { size: number; modules: Uint8Array } {
  const raw = encodeQR(content, 'raw', { ecc: 'medium', border: 1 });
  const size = raw.length - 2;
  const modules = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    const row = raw[y + 1]!;
    for (let x = 0; x < size; x++) modules[y * size + x] = row[x + 1] ? 1 : 0;
  }
  return { size, modules };
}

const app = Fastify();
app.post<{ Body: { content: string } }>('/generate', async (request, reply) => {
  const matrix = qrOwnMatrix(request.body.content);
  const png = writePng(matrix, layoutFor(matrix, 512, 4), '#000000ff', '#ffffffff', 1);
  return reply.type('image/png').send(png);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
