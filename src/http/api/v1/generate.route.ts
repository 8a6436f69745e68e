// POST /api/v1/QRManager/generate: the image in the body, quota in the headers.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { generateQr, CONTENT_TYPES, type GenerateQrDeps } from '../../../services/generate-qr.js';
import type { LastUsedBuffer } from '../../../services/last-used-buffer.js';
import { setQuotaHeaders } from '../../quota-headers.js';
import { GenerateBody } from './generate.schema.js';

export interface GenerateRouteDeps extends GenerateQrDeps {
  lastUsed: LastUsedBuffer;
}

export const generateRoute: FastifyPluginAsyncZod<GenerateRouteDeps> = async (app, deps) => {
  app.post(
    '/QRManager/generate',
    {
      schema: {
        summary: 'Generate a QR code image',
        tags: ['generation'],
        body: GenerateBody,
      },
    },
    async (request, reply) => {
      const caller = request.credential!;
      const result = await generateQr(deps, caller, request.body);
      deps.lastUsed.record(caller.keyId, deps.clock());
      setQuotaHeaders(reply, result.quota);
      return reply
        .code(200)
        .header('Content-Type', CONTENT_TYPES[result.format])
        .header('ETag', result.etag)
        .header('Cache-Control', 'private, max-age=0, must-revalidate')
        .send(Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength));
    },
  );
};
