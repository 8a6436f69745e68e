// SIGTERM under load: every request the server accepted is answered in full, the process exits 0, and usage matches the
// answers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { runCli, startServer, type RunningServer } from '../helpers/processes.js';

let dataDir: string;
let server: RunningServer;
let env: Record<string, string>;
let key: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-shutdown-'));
  // A drain long enough for a loaded machine to read every request already sent before the listener closes.
  // Load shedding off: on a machine busy with other suites the event loop can lag past its limit, and a shed 503 is
  // not what this test is about (test/http/operations.test.ts covers it).
  env = { QR_DATA_DIR: dataDir, RENDER_THREADS: '2', SHUTDOWN_DRAIN_MS: '5000', MAX_EVENT_LOOP_DELAY_MS: '0' };
  await runCli(['accounts', 'create', '--email', 'load@example.com', '--plan', 'business'], env);
  key = (await runCli(['keys', 'create', '--email', 'load@example.com'], env)).stdout.trim();
  server = await startServer(env);
}, 60_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('graceful shutdown', () => {
  it('finishes every in-flight request after SIGTERM, exits 0, and stores exactly what it acknowledged', async () => {
    let signalled = false;
    const requests = Array.from({ length: 40 }, (_, i) =>
      fetch(`${server.baseUrl}/api/v1/QRManager/generate`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          content: `https://example.com/shutdown/${i}`,
          type: 'url',
          outputFormat: 'webp',
          size: 2048,
        }),
        signal: AbortSignal.timeout(30_000),
      }).then(async (res) => {
        const bytes = new Uint8Array(await res.arrayBuffer());
        // A refusal shows its problem's code, so a failure says which.
        const status = res.status === 200 ? 200 : `${res.status} ${Buffer.from(bytes).toString().slice(0, 120)}`;
        return { status, bytes, afterSignal: signalled };
      }),
    );
    // All 40 are on the wire at once and the server answers them one after another (2048 px images go to the render
    // threads): the signal lands as the first answer arrives, with the others still being worked on.
    await Promise.race(requests);
    signalled = true;
    const exit = server.stop('SIGTERM');
    const answers = await Promise.all(requests);
    // Work really was in flight at SIGTERM: answers kept arriving after it.
    expect(answers.filter((a) => a.afterSignal).length).toBeGreaterThan(0);
    expect(await exit).toBe(0);
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(await decodeQr(answers[39]!.bytes, 'webp')).toEqual(readByAll('https://example.com/shutdown/39'));
    const usage = await runCli(['usage', '--email', 'load@example.com'], env);
    expect(usage.stdout).toContain('requests 40/');
    expect(usage.stdout).toContain('QRs 40/');
  }, 60_000);
});
