// `npm start` as an orchestrator runs it: the bundle (dist/bundle/api.js) finds every file it reads at run time, runs
// through its code cache, and SIGTERM to the npm process reaches the server, which shuts down (Debian's sh does not
// pass signals on).
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_SUFFIX } from '../../scripts/code-cache.mjs';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { freePort, runCli } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

/** Every process under `root` (children, grandchildren…), from /proc. */
async function descendants(root: number): Promise<Array<{ pid: number; cmdline: string }>> {
  const all: Array<{ pid: number; ppid: number; cmdline: string }> = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      all.push({ pid: Number(entry), ppid, cmdline });
    } catch {
      // The process ended while we looked.
    }
  }
  const found: Array<{ pid: number; cmdline: string }> = [];
  const walk = (parent: number) => {
    for (const p of all.filter((q) => q.ppid === parent)) {
      found.push(p);
      walk(p.pid);
    }
  };
  walk(root);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start', () => {
  it('runs the bundle, which serves the files it reads and renders on a thread; SIGTERM stops it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qrm-npm-start-'));
    const port = await freePort();
    await runCli(['accounts', 'create', '--email', 'start@example.com', '--plan', 'pro'], { QR_DATA_DIR: dir });
    const key = (await runCli(['keys', 'create', '--email', 'start@example.com'], { QR_DATA_DIR: dir })).stdout.trim();
    const npm = spawn('npm', ['start', '--silent'], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        QR_DATA_DIR: dir,
        LOG_LEVEL: 'info',
        SHUTDOWN_DRAIN_MS: '0',
        // Every render crosses to a render thread, so the thread entry the bundle names must load.
        RENDER_SMALL_ON_POOL: 'true',
        // No load shedding (as in test/helpers/app.ts): on a busy machine the start's work would 503 the first pages.
        MAX_EVENT_LOOP_DELAY_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own: whatever fails below, the finally stops npm and the server it started.
      detached: true,
    });
    let log = '';
    npm.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    let server: number | undefined;
    try {
      await waitFor(
        'the server to answer /healthz',
        async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200,
        {
          timeoutMs: 120_000,
          intervalMs: 100,
        },
      );
      // The built server finds what it reads from the checkout at run time: the guides in docs/, the portal's look.
      const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);
      const guide = await get('/portal/docs/cli');
      expect(guide.status).toBe(200);
      expect(await guide.text()).toMatch(/<h1 id="the-qrm-admin-command">/);
      // The portal's views and assets, the API reference's theme and the scan pages' templates, all from src/.
      expect(await (await get('/portal/signin')).text()).toContain('/portal/assets/portal.css');
      // Each body read whole: a response left unread keeps its connection busy, and close waits for it.
      expect(await (await get('/portal/assets/portal.css')).text()).toContain('--');
      expect(await (await get('/docs/static/theme/api-reference.css')).text()).toContain('--');
      expect(((await (await get('/openapi.json')).json()) as { openapi: string }).openapi).toMatch(/^3\./);
      const unknownScan = await get('/r/zzzzzzzz');
      expect(unknownScan.status).toBe(404);
      expect(unknownScan.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await unknownScan.text()).toContain('<html');
      const generated = await fetch(`http://127.0.0.1:${port}/api/v1/QRManager/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ content: 'https://example.com/bundle', type: 'url', outputFormat: 'png' }),
      });
      expect(generated.status).toBe(200);
      expect(await decodeQr(new Uint8Array(await generated.arrayBuffer()), 'png')).toEqual(
        readByAll('https://example.com/bundle'),
      );
      server = (await descendants(npm.pid!)).find(
        (p) => p.cmdline.includes('dist/bundle/api.js') && p.cmdline.startsWith('node'),
      )?.pid;
      expect(server).toBeDefined();
      npm.kill('SIGTERM');
      await waitFor('the server process to exit', () => !alive(server!), { timeoutMs: 20_000, intervalMs: 100 });
      expect(log).toContain('shutdown complete');
      // The server ran the API bundle through V8's code cache: the cache beside it is the one for this build.
      const bundle = join(import.meta.dirname, '..', '..', 'dist', 'bundle', 'api.cjs');
      const { size, mtimeMs } = await stat(bundle);
      const cache = await readFile(bundle + CACHE_SUFFIX);
      expect(cache.subarray(0, cache.indexOf('\n')).toString()).toBe(
        `${size}:${mtimeMs}:${process.version}:${process.arch}`,
      );
    } finally {
      if (server !== undefined && alive(server)) process.kill(server, 'SIGKILL');
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // npm's group has already exited.
      }
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
