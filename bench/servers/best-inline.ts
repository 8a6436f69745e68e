// Baseline (e): the best-possible inline render — `qr` matrix, our 1-bit PNG writer (repeated rows filtered Up) at
// node:zlib level 1, on the event loop, no auth or metering.
import Fastify from 'fastify';
import { layoutFor } from '../../src/render/layout.js';
import { writePng } from '../../src/render/png-writer.js';
import { buildMatrix } from '../../src/render/qr-matrix.js';

const app = Fastify();
app.post<{ Body: { content: string } }>('/generate', async (request, reply) => {
  const matrix = buildMatrix(request.body.content, 'M');
  const layout = layoutFor(matrix, 512, 4);
  const png = writePng(matrix, layout, '#000000ff', '#ffffffff', 1);
  return reply.type('image/png').send(png);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
