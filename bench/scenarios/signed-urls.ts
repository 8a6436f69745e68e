// Row s-signed: one signed image URL requested again and again with If-None-Match (a browser or CDN revalidating), each
// 304 metered.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { signedImagePath } from '../../src/domain/signed-url.js';
import { CONNECTIONS, DURATION, WARMUP, withService, type BenchScenario } from '../harness.js';
import { rowOf } from '../load.js';
import { cpuSeconds } from '../processes.js';

/**
 * The business plan without its burst: every answer of a signed URL counts against the signing account's burst
 * (1,000 a second on business), which one account's URL hit this hard would reach; the row measures the answer, not the
 * limiter.
 */
const BENCH_PLANS = {
  default: 'business',
  plans: [
    {
      id: 'business',
      name: 'Business (bench: no burst)',
      monthlyPriceUsd: 99,
      requestsPerMonth: null,
      qrsPerMonth: null,
      burstPerSecond: null,
      formats: ['png', 'webp', 'svg', 'pdf', 'eps'],
    },
  ],
};

function hits(url: string, etag: string, seconds: number) {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests: [{ method: 'GET', headers: { 'if-none-match': etag } }],
  });
}

export const signedUrlScenario: BenchScenario = {
  ids: ['s-signed'],
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qrm-bench-plans-'));
    const plansFile = join(dir, 'plans.json');
    writeFileSync(plansFile, JSON.stringify(BENCH_PLANS));
    try {
      return await withService({ QR_PLANS_FILE: plansFile }, async (service) => {
        const base = `http://127.0.0.1:${service.server.port}`;
        const created = await fetch(`${base}/api/v1/QRManager/signing-keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': service.keys[0]! },
          body: JSON.stringify({ name: 'bench' }),
        });
        if (created.status !== 201)
          throw new Error(`creating the bench's signing key failed: ${created.status} ${await created.text()}`);
        const key = (await created.json()) as { id: string; secret: string };
        const url = `${base}${signedImagePath(key.id, key.secret, 'png', { content: 'https://example.com/embedded', type: 'url', size: 256 })}`;
        const first = await fetch(url);
        const etag = first.headers.get('etag');
        if (first.status !== 200 || !etag)
          throw new Error(`the signed URL did not answer an image: ${first.status} ${await first.text()}`);
        if (WARMUP > 0) await hits(url, etag, WARMUP);
        const cpuBefore = cpuSeconds(service.server.child.pid);
        const result = await hits(url, etag, DURATION);
        const row = rowOf(
          's-signed',
          'ours, a signed image URL again with If-None-Match (304, metered)',
          result,
          service.server,
          cpuSeconds(service.server.child.pid) - cpuBefore,
        );
        if (result['2xx'] > 0 || result.non2xx !== result.requests.total)
          console.log(`s-signed: expected only 304s, got ${result['2xx']} 2xx of ${result.requests.total}`);
        return { rows: [row] };
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
