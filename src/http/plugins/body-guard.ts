// Every body has an owner and a deadline before it is read: uploads capped per owner, bodies held to a minimum rate,
// unread ones dropped.
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';
import { bodyArrivedWhole, paceBody, type BodyPace } from '../body-pace.js';
import { UPLOAD_MIN_BYTES, type UploadSlots } from '../upload-slots.js';

export interface BodyGuardOptions {
  slots: UploadSlots;
  /** Uploads in flight per caller (API key or portal session) and per client address; 0: no cap. */
  uploadsPerCaller: number;
  uploadsPerAddress: number;
  /** The minimum rate of a body still arriving; `minBytesPerSecond` 0 turns it off. */
  pace: BodyPace;
  /**
   * Who the request's own context authenticated in onRequest (an API key, a portal session); undefined on anonymous
   * routes.
   */
  callerOf: (request: FastifyRequest) => string | undefined;
}

/** The request says it has a body that may be large: declared over UPLOAD_MIN_BYTES, or chunked. */
function isUpload(request: FastifyRequest): boolean {
  const declared = request.headers['content-length'];
  if (declared !== undefined) return Number(declared) > UPLOAD_MIN_BYTES;
  return request.headers['transfer-encoding'] !== undefined;
}

async function bodyGuard(app: FastifyInstance, options: BodyGuardOptions): Promise<void> {
  const retryAfterSeconds = Math.max(1, Math.ceil(options.pace.windowMs / 1000));
  const tooSlow = () =>
    new ApiError(
      'request_timeout',
      `the request body arrived slower than ${options.pace.minBytesPerSecond} bytes a second over ` +
        `${options.pace.windowMs} ms; it was cut`,
      { extensions: { minBytesPerSecond: options.pace.minBytesPerSecond, windowMs: options.pace.windowMs } },
    );

  // preParsing, before any route's own: every context's onRequest hooks (API key, session, account) have run.
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (isUpload(request)) {
      const caller = options.callerOf(request);
      const release = options.slots.take([
        ...(caller === undefined ? [] : [{ key: caller, cap: options.uploadsPerCaller }]),
        { key: `address:${request.ip}`, cap: options.uploadsPerAddress },
      ]);
      if (!release) {
        throw new ApiError(
          'too_many_uploads',
          'too many uploads in flight from this caller or address; finish one first',
          { retryAfterSeconds },
        );
      }
      reply.raw.once('close', release);
    }
    // Only a body still arriving is paced: one that came with its headers has nothing left to wait for.
    if (options.pace.minBytesPerSecond === 0 || bodyArrivedWhole(request.raw)) return done(null, payload);
    const paced = paceBody(payload, options.pace, tooSlow);
    // Answered before the body was read (a refusal of a later hook): nobody reads it any more, so nothing is cut.
    reply.raw.once('close', () => paced.destroy());
    done(null, paced);
  });

  // An answer given before its body arrived (a refusal, a cut) closes the connection: Node would otherwise read the
  // rest of the body to discard it, and the client could keep the socket for as long as it likes.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyArrivedWhole(request.raw)) return done(null, payload);
    reply.header('connection', 'close');
    const socket = request.raw.socket;
    if (socket instanceof Socket) reply.raw.once('finish', () => setImmediate(() => socket.destroy()));
    done(null, payload);
  });
}

export default fp(bodyGuard, { name: 'body-guard' });
