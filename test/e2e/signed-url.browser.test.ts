// A signed URL made by the docs' ten-line Node script, in an <img> of another site's page in Chromium: the code shows,
// and it scans.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { freePort } from '../helpers/processes.js';
import { newSigningKey } from '../helpers/signed-urls.js';
import { CHROMIUM_ARGS } from '../helpers/chromium.js';

const run = promisify(execFile);

/** The script exactly as docs/signed-urls.md shows it, between its markers. */
function docsScript(): string {
  const doc = readFileSync(new URL('../../docs/signed-urls.md', import.meta.url), 'utf8');
  const block = /<!-- sign-script -->\n```js\n([\s\S]*?)```\n<!-- \/sign-script -->/.exec(doc);
  if (!block) throw new Error('docs/signed-urls.md has no sign-script block');
  return block[1]!;
}

let t: TestApp;
let base: string;
let site: Server;
let sitePort: number;
let dir: string;
let imageUrl = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qrm-signed-browser-'));
  t = await createTestApp();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  await t.app.listen({ port, host: '127.0.0.1' });
  // The customer's own site, on another origin: a page that embeds the code and nothing else.
  sitePort = await freePort();
  site = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(
      `<!doctype html><body style="margin:0;background:#fff"><img id="qr" alt="QR code" src="` +
        `${imageUrl.replaceAll('&', '&amp;')}"></body>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(sitePort, '127.0.0.1', resolve));
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

it(
  "loads a signed URL made by the docs' script in an " +
    "<img> of another site's page, and the code on screen " +
    'scans',
  async () => {
    const caller = await t.newCaller('free');
    const signing = await newSigningKey(t.app, caller.key, 'browser');
    const script = join(dir, 'sign.mjs');
    await writeFile(script, docsScript());
    const { stdout } = await run(process.execPath, [script], {
      env: { ...process.env, QR_BASE_URL: base, QR_SIGNING_KEY_ID: signing.id, QR_SIGNING_SECRET: signing.secret },
    });
    imageUrl = stdout.trim();
    expect(imageUrl.startsWith(`${base}/i/${signing.id}/png?`)).toBe(true);

    const profile = await mkdtemp(join(dir, 'chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
      headless: true,
      timeout: 30_000,
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const answers: number[] = [];
      page.on('response', (response) => {
        if (response.url().startsWith(`${base}/i/`)) answers.push(response.status());
      });
      await page.goto(`http://127.0.0.1:${sitePort}/`);
      const img = page.locator('#qr');
      await page.waitForFunction(() => {
        const element = document.getElementById('qr') as HTMLImageElement | null;
        return element !== null && element.complete && element.naturalWidth > 0;
      });
      expect(await img.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBe(300);
      expect(answers).toEqual([200]);
      const shot = await img.screenshot();
      expect(await decodeQr(shot, 'png')).toEqual(readByAll('https://example.com/menu'));
    } finally {
      await context.close();
    }
    expect((await t.stores.meter.usage(caller.accountId, periodOf(new Date()))).requests).toBe(1);
  },
  60_000,
);
