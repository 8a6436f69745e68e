// Which bodies the slow-body guard paces: one already here (sent with its headers) is not, one still arriving is.
import { connect, type AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyArrivedWhole } from '../../src/http/body-pace.js';
import { waitFor } from '../helpers/wait.js';

/** What bodyArrivedWhole said of each request where the body guard asks it: preParsing, after async onRequest hooks. */
const seen: boolean[] = [];
const app = Fastify();
app.addHook('onRequest', async () => {});
app.addHook('preParsing', async (request, _reply, payload) => {
  seen.push(bodyArrivedWhole(request.raw));
  return payload;
});
app.post('/x', async () => 'ok');
const server = app.server;

beforeAll(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => app.close());

/** Sends one request as raw bytes in a single write, then closes after a moment; resolves once the server asked. */
async function send(head: string[], body: string): Promise<boolean> {
  const before = seen.length;
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  const answer = await waitFor('the server to look at the body', () => seen.length > before && { whole: seen[before] });
  socket.destroy();
  return answer.whole!;
}

describe('bodyArrivedWhole', () => {
  const head = (headers: string[]) => ['POST /x HTTP/1.1', 'host: localhost', ...headers];

  it('is true for a small JSON body sent with its headers', async () => {
    const body = JSON.stringify({ content: 'https://example.com', type: 'url' });
    expect(await send(head([`content-length: ${Buffer.byteLength(body)}`]), body)).toBe(true);
  });

  it('is false while part of the declared body has still to arrive', async () => {
    expect(await send(head(['content-length: 100']), 'x'.repeat(40))).toBe(false);
  });

  it('is false for a chunked body not yet ended', async () => {
    expect(await send(head(['transfer-encoding: chunked']), '5\r\nhello\r\n')).toBe(false);
  });
});

describe('bodyArrivedWhole on a request that declares no body', () => {
  // Synchronous hooks, as the service's are: preParsing runs before Node has marked the message complete.
  const quick = Fastify();
  const asked: Array<{ complete: boolean; whole: boolean }> = [];
  quick.addHook('onRequest', (_request, _reply, done) => done());
  quick.addHook('preParsing', (request, _reply, payload, done) => {
    asked.push({ complete: request.raw.complete, whole: bodyArrivedWhole(request.raw) });
    done(null, payload);
  });
  quick.get('/x', async () => 'ok');
  beforeAll(async () => {
    await quick.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => quick.close());

  it('is true for a GET (every scan) even before Node marks it complete, so nothing is paced', async () => {
    const port = (quick.server.address() as AddressInfo).port;
    const res = await fetch(`http://127.0.0.1:${port}/x`);
    expect(await res.text()).toBe('ok');
    expect(asked).toEqual([{ complete: false, whole: true }]);
  });
});
