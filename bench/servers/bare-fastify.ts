// Baseline of the start-up row: a bare Fastify app answering GET /healthz, the least a Fastify service does before it
// listens.
import Fastify from 'fastify';

const app = Fastify();
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
