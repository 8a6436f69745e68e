// A request body held to a minimum rate: each window (the first one included) must bring its share, or the stream
// fails.
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';

export interface BodyPace {
  minBytesPerSecond: number;
  windowMs: number;
}

/**
 * The payload passed through, failing with `tooSlow()` at the end of the first window that brought fewer than its
 * bytes.
 */
export function paceBody(payload: Readable, pace: BodyPace, tooSlow: () => Error): Readable {
  const minimum = (pace.minBytesPerSecond * pace.windowMs) / 1000;
  let inWindow = 0;
  const check = () => {
    if (inWindow < minimum) {
      paced.destroy(tooSlow());
      return;
    }
    inWindow = 0;
    timer = setTimeout(check, pace.windowMs).unref();
  };
  let timer = setTimeout(check, pace.windowMs).unref();
  const paced = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inWindow += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      clearTimeout(timer);
      done();
    },
  });
  paced.once('close', () => clearTimeout(timer));
  payload.on('error', (error) => paced.destroy(error));
  return payload.pipe(paced);
}

/**
 * The whole body is already here: the request is complete, it declares no body (neither Content-Length nor
 * Transfer-Encoding: none, RFC 9112 §6.3), or every byte its Content-Length declares is buffered (a small body sent
 * with its headers, before Node has marked the message complete). Nothing is left to pace or to wait for.
 */
export function bodyArrivedWhole(raw: IncomingMessage): boolean {
  if (raw.complete) return true;
  const declared = raw.headers['content-length'];
  if (declared === undefined) return raw.headers['transfer-encoding'] === undefined;
  return raw.readableLength >= Number(declared);
}
