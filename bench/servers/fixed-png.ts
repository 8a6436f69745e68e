// Baseline (b): the HTTP ceiling — the same Fastify answering every POST with one fixed PNG.
import Fastify from 'fastify';
import QRCode from 'qrcode';

const png = await QRCode.toBuffer('https://example.com/fixed', { width: 512 });
const app = Fastify();
app.post('/generate', async (_request, reply) => reply.type('image/png').send(png));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
