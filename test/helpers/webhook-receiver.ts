// A real webhook receiver on 127.0.0.1 for the batch tests, and the Standard Webhooks check written from the spec, not
// with our signing code.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.js';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status this receiver answered with. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` messages have arrived; fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** `answer(n)` gives the status for the n-th message (0-based); `onMessage` runs after the answer is sent. */
export async function startWebhookReceiver(
  answer: (n: number) => number = () => 204,
  onMessage?: (n: number) => void,
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const n = received.length;
      const status = answer(n);
      received.push({ headers: req.headers, body, status });
      res.writeHead(status).end(() => onMessage?.(n));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/qr`,
    received,
    async waitFor(count, timeoutMs) {
      await waitFor(`${count} webhook(s)`, () => received.length >= count, { timeoutMs, intervalMs: 50 }).catch(() => {
        throw new Error(`${received.length} webhook(s) arrived within ${timeoutMs} ms, expected ${count}`);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The receiver's side of Standard Webhooks: some `v1,` signature equals HMAC-SHA256(secret bytes, `id.timestamp.body`).
 */
export function verifyWebhook(secret: string, message: Pick<ReceivedWebhook, 'headers' | 'body'>): boolean {
  const id = String(message.headers['webhook-id']);
  const timestamp = String(message.headers['webhook-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${message.body}`)
    .digest();
  return String(message.headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [version, value] = sig.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
