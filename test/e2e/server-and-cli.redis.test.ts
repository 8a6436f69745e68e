// The real server and qrm on REDIS_URL: a key revoked with qrm is refused by the running server, although it had the
// key cached.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer, type RunningServer } from '../helpers/processes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let redis: RedisServer;
let dataDir: string;
let server: RunningServer;
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-redis-e2e-'));
  env = { QR_DATA_DIR: dataDir, REDIS_URL: redis.url };
  server = await startServer(env);
}, 60_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await redis?.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

const generate = (key: string) =>
  fetch(`${server.baseUrl}/api/v1/QRManager/generate`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: 'https://example.com', type: 'url', outputFormat: 'png', size: 128 }),
  });

describe('the server and qrm in production mode (REDIS_URL)', () => {
  it(
    'meters on Redis, and refuses a key revoked with qrm although the server had it cached (the revocation is ' +
      'pushed)',
    async () => {
      await runCli(['accounts', 'create', '--email', 'ops@example.com'], env);
      const key = (await runCli(['keys', 'create', '--email', 'ops@example.com'], env)).stdout.trim();
      // Several requests: the first subscribes the credential cache, the next are answered from it.
      for (let i = 0; i < 3; i++) expect((await generate(key)).status).toBe(200);
      expect((await runCli(['usage', '--email', 'ops@example.com'], env)).stdout).toContain('requests 3/500');

      const [record] = JSON.parse(
        (await runCli(['keys', 'list', '--email', 'ops@example.com', '--json'], env)).stdout,
      ) as Array<{ id: string }>;
      await runCli(['keys', 'revoke', '--email', 'ops@example.com', '--id', record!.id], env);
      // The key is in the server's credential cache (10 s TTL); the refusal comes from the pushed revocation, waited
      // for
      // at most 5 s.
      await waitFor('the server to refuse the key', async () => (await generate(key)).status === 401, {
        timeoutMs: 5_000,
        intervalMs: 20,
      });
    },
    60_000,
  );

  it('closes its Redis connections and exits 0 on SIGTERM', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
  }, 30_000);
});
