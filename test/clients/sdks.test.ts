// Both SDKs against a real server (the same entry as `npm start`): a PNG, a batch and its archive, a dynamic code and
// its stats; each README's install and quick start, run as written from an empty directory; generated code current.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QrManager, QrManagerError } from '../../clients/typescript/src/index.js';
import { generatedClientFiles } from '../../scripts/generate-clients.js';
import { unpackArchive } from '../helpers/batches.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { USER_AGENTS } from '../helpers/codes.js';
import { runCli, startServer, type RunningServer } from '../helpers/processes.js';
import { blockWith } from '../helpers/readme-blocks.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);

let dataDir: string;
let projects: string;
let server: RunningServer;
let proKey: string;
let freeKey: string;
let pythonFreeKey: string;
let quotaKey: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-sdks-'));
  projects = await mkdtemp(join(tmpdir(), 'qrm-sdk-readmes-'));
  const env = { QR_DATA_DIR: dataDir };
  server = await startServer(env, 60_000);
  await runCli(['accounts', 'create', '--email', 'sdk@example.com', '--plan', 'pro'], env);
  await runCli(['accounts', 'create', '--email', 'sdk-free@example.com'], env);
  proKey = (await runCli(['keys', 'create', '--email', 'sdk@example.com', '--name', 'sdk'], env)).stdout.trim();
  freeKey = (await runCli(['keys', 'create', '--email', 'sdk-free@example.com', '--name', 'sdk'], env)).stdout.trim();
  await runCli(['accounts', 'create', '--email', 'sdk-python-free@example.com'], env);
  pythonFreeKey = (
    await runCli(['keys', 'create', '--email', 'sdk-python-free@example.com', '--name', 'sdk'], env)
  ).stdout.trim();
  await runCli(['accounts', 'create', '--email', 'sdk-quota@example.com'], env);
  quotaKey = (await runCli(['keys', 'create', '--email', 'sdk-quota@example.com', '--name', 'sdk'], env)).stdout.trim();
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await rm(projects, { recursive: true, force: true });
});

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('the TypeScript SDK (clients/typescript)', () => {
  it('generates a PNG that every reader reads back', async () => {
    const client = new QrManager({ baseUrl: server.baseUrl, apiKey: proKey });
    const png = await client.generate({
      content: 'hello from typescript',
      type: 'text',
      outputFormat: 'png',
      size: 256,
    });
    expect(png).toBeInstanceOf(Uint8Array);
    expect(await decodeQr(png, 'png')).toEqual(readByAll('hello from typescript'));
  });

  it('creates a batch once per Idempotency-Key, waits for it and streams its archive', async () => {
    const client = new QrManager({ baseUrl: server.baseUrl, apiKey: proKey });
    const items = [0, 1, 2].map((i) => ({
      content: `https://example.com/ts/${i}`,
      type: 'url' as const,
      outputFormat: 'png' as const,
      size: 128,
      name: `ts-${i}`,
    }));
    const batch = await client.createBatch({ items }, { idempotencyKey: 'ts-batch-1' });
    expect((await client.createBatch({ items }, { idempotencyKey: 'ts-batch-1' })).id).toBe(batch.id);
    const done = await client.waitForBatch(batch.id, { timeoutMs: 60_000, intervalMs: 100 });
    expect(done).toMatchObject({ status: 'completed', succeeded: 3 });
    const archive = await unpackArchive(await bytesOf(await client.archive(batch.id)));
    expect(archive.files).toEqual(['manifest.csv', 'ts-0.png', 'ts-1.png', 'ts-2.png']);
    expect(await decodeQr(await readFile(join(archive.dir, 'ts-1.png')), 'png')).toEqual(
      readByAll('https://example.com/ts/1'),
    );
  });

  it('creates a dynamic code, draws it and reads its stats', async () => {
    const client = new QrManager({ baseUrl: server.baseUrl, apiKey: proKey });
    const code = await client.createCode({ target: 'https://example.com/ts-target', name: 'from typescript' });
    const png = await client.codeImage(code.id, { size: 256 });
    expect(await decodeQr(png, 'png')).toEqual(readByAll(code.shortUrl));
    // A person's phone (a fetch without a browser's User-Agent is counted as a bot, apart).
    const scanned = await fetch(`${server.baseUrl}/r/${code.slug}`, {
      redirect: 'manual',
      headers: { 'user-agent': USER_AGENTS.ios },
    });
    expect(scanned.headers.get('location')).toBe('https://example.com/ts-target');
    // The scan is counted after its answer: its stats show it once it is written, and show it once.
    const stats = await waitFor('the scan in the code stats', async () => {
      const read = await client.codeStats(code.id);
      return read.totals.scans > 0 && read;
    });
    expect(stats.codeId).toBe(code.id);
    expect(stats.totals).toMatchObject({ scans: 1, uniqueScanners: 1, bots: 0 });
    const account = await client.accountStats({ interval: 'day' });
    expect(account.interval).toBe('day');
    expect(account.series).toHaveLength(30);
  });

  it('turns a problem into a QrManagerError with its code', async () => {
    const client = new QrManager({ baseUrl: server.baseUrl, apiKey: 'qrm_live_notakey' });
    const error = await client.generate({ content: 'x', type: 'text', outputFormat: 'png' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QrManagerError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it(
    'waits out 429 rate_limited by its Retry-After: a ' + "burst past the free plan's 10 a second all succeeds",
    async () => {
      const client = new QrManager({ baseUrl: server.baseUrl, apiKey: freeKey });
      const images = await Promise.all(
        Array.from({ length: 14 }, () =>
          client.generate({ content: 'burst', type: 'text', outputFormat: 'png', size: 128 }),
        ),
      );
      expect(images.every((png) => png[0] === 0x89)).toBe(true);
      const noRetries = new QrManager({ baseUrl: server.baseUrl, apiKey: freeKey, retries: 0 });
      const answers = await Promise.allSettled(
        Array.from({ length: 14 }, () =>
          noRetries.generate({ content: 'burst', type: 'text', outputFormat: 'png', size: 128 }),
        ),
      );
      expect(answers.some((a) => a.status === 'rejected' && (a.reason as QrManagerError).code === 'rate_limited')).toBe(
        true,
      );
    },
  );

  it("raises the free plan's quota 429 at once, with resetsAt at the start of next month (UTC)", async () => {
    const client = new QrManager({ baseUrl: server.baseUrl, apiKey: quotaKey });
    for (let i = 0; i < 5; i++)
      await client.generate({ content: `quota ${i}`, type: 'text', outputFormat: 'png', size: 128 });
    const error = (await client
      .generate({ content: 'quota 5', type: 'text', outputFormat: 'png', size: 128 })
      .catch((e: unknown) => e)) as QrManagerError;
    expect(error).toBeInstanceOf(QrManagerError);
    expect(error.code).toBe('qr_quota_exceeded');
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect(Math.abs(error.resetsAt!.getTime() - nextMonth)).toBeLessThan(60_000);
  });

  describe('retries, against a loopback server answering what the test says', () => {
    let answers: Array<{ status: number; headers: Record<string, string>; body: string }> = [];
    let requests = 0;
    let stub: Server;
    let stubUrl: string;
    beforeAll(async () => {
      stub = createServer((_request, response) => {
        const answer = answers[Math.min(requests++, answers.length - 1)]!;
        response.writeHead(answer.status, answer.headers).end(answer.body);
      });
      await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
      stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => stub.close(() => resolve())));
    const problem = (status: number, code: string, retryAfter: string) => ({
      status,
      headers: { 'content-type': 'application/problem+json', 'retry-after': retryAfter },
      body: JSON.stringify({ status, code, title: code, detail: code, type: `/problems/${code}` }),
    });
    const png = { status: 200, headers: { 'content-type': 'image/png' }, body: '\x89PNG' };
    const answering = (...given: typeof answers) => {
      answers = given;
      requests = 0;
    };
    const body = { content: 'x', type: 'text', outputFormat: 'png' } as const;

    it('retries a 429 rate_limited after its Retry-After', async () => {
      answering(problem(429, 'rate_limited', '0'), png);
      await new QrManager({ baseUrl: stubUrl, apiKey: 'k' }).generate(body);
      expect(requests).toBe(2);
    });

    it('never retries another 429', async () => {
      answering(problem(429, 'too_many_uploads', '0'), png);
      const error = await new QrManager({ baseUrl: stubUrl, apiKey: 'k' }).generate(body).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 429, code: 'too_many_uploads' });
      expect(requests).toBe(1);
    });

    it('retries 503s only while the waits together stay within maxWaitMs', async () => {
      answering(problem(503, 'overloaded', '1'));
      const error = await new QrManager({ baseUrl: stubUrl, apiKey: 'k', maxWaitMs: 1_500 })
        .generate(body)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 503, code: 'overloaded' });
      expect(requests).toBe(2);
    });
  });
});

describe('the Python SDK (clients/python)', () => {
  it(
    'passes its own unittest suite against the server: ' +
      'PNG, batch and archive, dynamic code and stats, ' +
      'errors',
    async () => {
      const { stdout, stderr } = await exec(
        'python3',
        ['-m', 'unittest', 'discover', '-s', 'clients/python/tests', '-v'],
        {
          env: { ...process.env, QRM_BASE_URL: server.baseUrl, QRM_API_KEY: proKey, QRM_FREE_API_KEY: pythonFreeKey },
          timeout: 120_000,
        },
      ).catch((error: { stdout: string; stderr: string }) => {
        throw new Error(`python3 -m unittest failed:\n${error.stdout}\n${error.stderr}`);
      });
      const report = stdout + stderr;
      expect(report).toMatch(/Ran 5 tests/);
      expect(report).toMatch(/\nOK\n/);
      expect(report).not.toMatch(/skipped/);
    },
    120_000,
  );
});

/** A README's shell lines run by bash in `cwd`, with the checkout's path for the README's `/path/to/qr-manager`. */
async function runShell(lines: string, cwd: string, env: Record<string, string> = {}): Promise<string> {
  const script = `set -euo pipefail\n${lines.replaceAll('/path/to/qr-manager', process.cwd())}`;
  // Minutes, not seconds: `npm run qrm` rebuilds dist/ first when a source is newer (CI's `npm ci` has just built it).
  const options = { cwd, env: { ...process.env, ...env }, timeout: 300_000 };
  const { stdout } = await exec('bash', ['-c', script], options).catch((error: { stdout: string; stderr: string }) => {
    throw new Error(`${lines} failed:\n${error.stdout}\n${error.stderr}`);
  });
  return stdout;
}

/** The README's key lines, run in the checkout for an account of its own: the QRM_API_KEY they export. */
async function readmeKey(readme: string, email: string): Promise<string> {
  const lines = blockWith(readme, 'sh', 'keys create').replaceAll('you@example.com', email);
  const output = await runShell(`${lines}printf '\\n%s' "$QRM_API_KEY"`, process.cwd(), { QR_DATA_DIR: dataDir });
  const key = output.split('\n').at(-1)!;
  expect(key).toMatch(/^qrm_live_\w+$/);
  return key;
}

/** An empty directory for one README's project. */
async function emptyProject(name: string): Promise<string> {
  const dir = join(projects, name);
  await exec('mkdir', [dir]);
  return dir;
}

/** The README's quick start: every image it wrote reads back, on every reader, as what it encoded. */
async function expectQuickStartImages(dir: string, shortUrl: string): Promise<void> {
  expect(await decodeQr(await readFile(join(dir, 'hello.png')), 'png')).toEqual(readByAll('https://example.com'));
  const archive = await unpackArchive(await readFile(join(dir, 'batch.zip')));
  expect(archive.files).toEqual(['a.png', 'b.png', 'manifest.csv']);
  expect(await decodeQr(await readFile(join(archive.dir, 'b.png')), 'png')).toEqual(readByAll('https://example.com/b'));
  expect(shortUrl).toMatch(/^http:\/\/\S+\/r\/\S+$/);
  expect(await decodeQr(await readFile(join(dir, 'poster.png')), 'png')).toEqual(readByAll(shortUrl));
}

describe('each SDK README, run as written from an empty directory against the server', () => {
  // What a checkout's `npm ci` does for the TypeScript client (scripts/prepare.mjs): build it from the current sources.
  beforeAll(async () => {
    await exec('npm', ['run', '--silent', 'build'], { cwd: 'clients/typescript', timeout: 170_000 });
  }, 180_000);
  const quiet = {
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const serverEnv = () => ({ QRM_BASE_URL: server.baseUrl });

  it('TypeScript: one install command; its ES-module and CommonJS quick starts write codes that scan', async () => {
    const readme = await readFile('clients/typescript/README.md', 'utf8');
    const dir = await emptyProject('typescript');
    await runShell(blockWith(readme, 'sh', 'npm install'), dir, quiet);
    await writeFile(join(dir, 'quickstart.mjs'), blockWith(readme, 'js', '// quickstart.mjs'));
    await writeFile(join(dir, 'quickstart.cjs'), blockWith(readme, 'js', '// quickstart.cjs'));

    const esmKey = await readmeKey(readme, 'readme-esm@example.com');
    const esm = await runShell('node quickstart.mjs', dir, { ...serverEnv(), QRM_API_KEY: esmKey });
    expect(esm).toContain('SVG needs a paid plan');
    await expectQuickStartImages(dir, esm.split(/\s/)[0]!);

    const cjsKey = await readmeKey(readme, 'readme-cjs@example.com');
    await runShell('node quickstart.cjs', dir, { ...serverEnv(), QRM_API_KEY: cjsKey });
    const cjsPng = await readFile(join(dir, 'hello-cjs.png'));
    expect(await decodeQr(cjsPng, 'png')).toEqual(readByAll('https://example.com/cjs'));
  }, 900_000);

  it('Python: its quick start (standard library only) writes codes that scan and shows the SVG refusal', async () => {
    const readme = await readFile('clients/python/README.md', 'utf8');
    const dir = await emptyProject('python');
    await writeFile(join(dir, 'quickstart.py'), blockWith(readme, 'python', '# quickstart.py'));
    const key = await readmeKey(readme, 'readme-python@example.com');
    const run = blockWith(readme, 'sh', 'python3 quickstart.py');
    const output = await runShell(run, dir, { ...serverEnv(), QRM_API_KEY: key });
    expect(output).toContain('plan_upgrade_required');
    await expectQuickStartImages(dir, output.split(/\s/)[0]!);
  }, 600_000);
});

describe('the generated client code', () => {
  it('matches a fresh generation from the document the app builds (else run `npm run sdk:generate`)', async () => {
    for (const [path, text] of Object.entries(await generatedClientFiles())) {
      const checkedIn = await readFile(path, 'utf8').catch(() => '<missing>');
      expect(checkedIn === text, `${path} is stale: run \`npm run sdk:generate\` and commit the result`).toBe(true);
    }
  }, 60_000);
});
