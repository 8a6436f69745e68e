// A request body bounded before it is parsed: refused from Content-Length, or the moment the stream passes the limit.
import { Socket } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Throws `tooLarge()` when the declared length is over `limit` (the connection is closed: the client may still be
 * sending).
 */
export function refuseDeclaredOver(
  request: FastifyRequest,
  reply: FastifyReply,
  limit: number,
  tooLarge: (bytes: number) => Error,
): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    reply.header('connection', 'close');
    // Node would otherwise read the rest of the refused body to discard it (req._dump): megabytes through the parser on
    // the event loop for nothing. Once the answer is written, the connection goes, unread bytes and all.
    const socket = request.raw.socket;
    if (socket instanceof Socket) reply.raw.once('finish', () => setImmediate(() => socket.destroy()));
    throw tooLarge(declared);
  }
}

/**
 * The payload passed through, failing with `tooLarge()` as soon as more than `limit` bytes have arrived (a chunked or
 * lying client).
 */
export function capStream(payload: Readable, limit: number, tooLarge: (bytes: number) => Error): Readable {
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) done(tooLarge(seen));
      else done(null, chunk);
    },
  });
  payload.on('error', (error) => capped.destroy(error));
  return payload.pipe(capped);
}
