// The portal in headless Chromium: sign in through Google and Microsoft stand-ins, create a key, use it, watch usage,
// revoke it.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, GENERATE_URL, type TestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { newGoogleUser, newMicrosoftUser, startMockProvider, type MockProvider } from '../helpers/oidc-provider.js';
import { freePort } from '../helpers/processes.js';
import { CHROMIUM_ARGS as SHARED_CHROMIUM_ARGS } from '../helpers/chromium.js';

const SCREENSHOTS = join(process.cwd(), 'test-output', 'screenshots');
const CHROMIUM_ARGS = [...SHARED_CHROMIUM_ARGS, '--disable-quic'];
const WAIT_MS = 10_000;

let google: MockProvider;
let microsoft: MockProvider;
let t: TestApp;
let base: string;

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  [google, microsoft] = await Promise.all([startMockProvider('google'), startMockProvider('microsoft')]);
  // PUBLIC_URL must be known before the app is built (it is the OAuth redirect URI), so the port is chosen first.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({
    env: {
      PUBLIC_URL: base,
      SESSION_SECRET: 'browser-test-session-secret-0123456789',
      GOOGLE_CLIENT_ID: 'google-client',
      GOOGLE_CLIENT_SECRET: 'google-secret',
      GOOGLE_ISSUER: google.issuer,
      MICROSOFT_CLIENT_ID: 'microsoft-client',
      MICROSOFT_CLIENT_SECRET: 'microsoft-secret',
      MICROSOFT_ISSUER: microsoft.issuer,
    },
  });
  // @fastify/oauth2's callback needs a real listening server: the browser is redirected to it.
  await t.app.listen({ port, host: '127.0.0.1' });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await Promise.all([google?.stop(), microsoft?.stop()]);
});

/** A fresh Chromium profile per journey: nothing carries over between the Google and Microsoft runs. */
async function withBrowser(run: (page: Page, context: BrowserContext) => Promise<void>): Promise<void> {
  const profile = await mkdtemp(join(tmpdir(), 'qrm-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1200, height: 860 },
    timeout: 30_000,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(WAIT_MS);
    page.setDefaultNavigationTimeout(WAIT_MS);
    await run(page, context);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

async function callApi(key: string, content: string) {
  return fetch(`${base}${GENERATE_URL}`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content, type: 'url', outputFormat: 'png' }),
    signal: AbortSignal.timeout(WAIT_MS),
  });
}

async function usage(page: Page, id: 'requests' | 'qrs'): Promise<string> {
  return page.locator(`#usage-${id} .used`).innerText();
}

describe.each([
  { provider: 'google' as const, label: 'Google', user: newGoogleUser() },
  { provider: 'microsoft' as const, label: 'Microsoft', user: newMicrosoftUser() },
])('the portal journey with $label sign-in', ({ provider, label, user }) => {
  it('signs in, creates a key, uses it, sees usage move, revokes it and sees it refused', async () => {
    (provider === 'google' ? google : microsoft).signInAs(user);
    await withBrowser(async (page, context) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('response', (response) => {
        if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
      });

      // Signed out, the portal sends the browser to sign-in.
      await page.goto(`${base}/portal/`);
      expect(new URL(page.url()).pathname).toBe('/portal/signin');
      await screenshot(page, `${provider}-1-signin`);

      // Through the provider stand-in and back, signed in to a new free account.
      await page.getByRole('link', { name: `Sign in with ${label}` }).click();
      await page.waitForURL(`${base}/portal/`);
      await expect(page.locator('.who .email').innerText()).resolves.toBe(user.email);
      expect(await usage(page, 'requests')).toBe('0');
      await screenshot(page, `${provider}-2-dashboard-new`);

      // Create a key: the secret is shown once, with a copy button.
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByPlaceholder('Name, e.g. production server').fill(`${label} laptop`);
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = await page.locator('#secret').inputValue();
      expect(secret).toMatch(/^qrm_live_[0-9A-Za-z]{36}$/);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      await page.getByRole('button', { name: 'Copy' }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(secret);
      await screenshot(page, `${provider}-3-key-created`);

      // Use it with the generation API; the image decodes with both real decoders.
      const content = `https://example.com/${provider}`;
      const generated = await callApi(secret, content);
      expect(generated.status).toBe(200);
      expect(await decodeQr(new Uint8Array(await generated.arrayBuffer()), 'png')).toEqual(readByAll(content));

      // Usage moved on the dashboard.
      await page.getByRole('link', { name: 'Dashboard' }).click();
      expect(await usage(page, 'requests')).toBe('1');
      expect(await usage(page, 'qrs')).toBe('1');
      await screenshot(page, `${provider}-4-dashboard-used`);

      // The QR manager lists the code with a rendered thumbnail.
      await page.getByRole('link', { name: 'QR codes' }).click();
      const row = page.locator('table.qrs tbody tr');
      await expect(row.count()).resolves.toBe(1);
      await expect(row.locator('.payload').innerText()).resolves.toBe(content);
      await expect(row.locator('.generations').innerText()).resolves.toBe('1 time');
      await expect(
        row.locator('img.thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
      ).resolves.toBe(true);
      await screenshot(page, `${provider}-5-qrs`);

      // The playground generates with the account's quota.
      await page.getByRole('link', { name: 'Playground' }).click();
      await page.locator('#type').selectOption('text');
      await page.locator('#content').fill(`Hello from the ${label} playground`);
      await page.getByRole('button', { name: 'Generate' }).click();
      await page.locator('img.generated').waitFor();
      const dataUri = await page.locator('img.generated').getAttribute('src');
      const decoded = await decodeQr(Buffer.from(dataUri!.split(',')[1]!, 'base64'), 'png');
      expect(decoded.zbar).toBe(`Hello from the ${label} playground`);
      await screenshot(page, `${provider}-6-playground`);

      // Read it back in the page (no reload), then a photo of it chosen as a file: each reader's text is shown.
      const readers = page.locator('#decode-result table.decoded tbody tr');
      const shown = async () =>
        (await readers.allInnerTexts()).map((row) => row.replace(/^\w+/, (reader) => reader.toLowerCase()));
      await page.getByRole('button', { name: 'Read it back' }).click();
      await readers.first().waitFor();
      expect(await shown()).toEqual([
        `zxing\tHello from the ${label} playground`,
        `zbar\tHello from the ${label} playground`,
        `jsqr\tHello from the ${label} playground`,
      ]);
      const photo = await sharp(Buffer.from(dataUri!.split(',')[1]!, 'base64'))
        .rotate(11, { background: '#cfcac2' })
        .jpeg({ quality: 85 })
        .toBuffer();
      await page.locator('#decode-file').setInputFiles({ name: 'photo.jpg', mimeType: 'image/jpeg', buffer: photo });
      await page.getByRole('button', { name: 'Read', exact: true }).click();
      // The panel is replaced when the answer arrives: the count of requests left moves from 497 to 496.
      await page.locator('#decode-result:has-text("496 requests left")').waitFor();
      await expect(page.locator('#decode-result .hint').innerText()).resolves.toMatch(/^496 requests left/);
      expect(await shown()).toEqual([
        `zxing\tHello from the ${label} playground`,
        `zbar\tHello from the ${label} playground`,
        `jsqr\tHello from the ${label} playground`,
      ]);
      await screenshot(page, `${provider}-6b-playground-read`);

      await page.getByRole('link', { name: 'Plans' }).click();
      await expect(page.getByText('an upgrade is an operator action for now').isVisible()).resolves.toBe(true);
      await screenshot(page, `${provider}-7-plans`);

      await page.getByRole('link', { name: 'Dashboard' }).click();
      // The two reads count as requests, and make no code.
      expect(await usage(page, 'requests')).toBe('4');
      expect(await usage(page, 'qrs')).toBe('2');

      // Revoke (the page asks first), then the API refuses the key.
      await page.getByRole('link', { name: 'API keys' }).click();
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('The key was revoked').waitFor();
      await expect(page.locator('tbody .badge').first().innerText()).resolves.toMatch(/^revoked/);
      await screenshot(page, `${provider}-8-keys-revoked`);
      expect((await callApi(secret, content)).status).toBe(401);

      // Sign out ends the session.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${base}/portal/signin`);
      await page.goto(`${base}/portal/keys`);
      expect(new URL(page.url()).pathname).toBe('/portal/signin');

      expect(errors).toEqual([]);
    });
  }, 120_000);
});
