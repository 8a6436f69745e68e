// Baseline (a): what a user would write instead — Fastify calling qrcode.toBuffer inline, no auth, no metering.
import Fastify from 'fastify';
import QRCode from 'qrcode';

const app = Fastify();
app.post<{ Body: { content: string } }>('/generate', async (request, reply) => {
  const png = await QRCode.toBuffer(request.body.content, { width: 512, errorCorrectionLevel: 'M' });
  return reply.type('image/png').send(png);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
