// The portal's working pages in Chromium at 390 and 1280 px: batch progress without a reload, a code's image and
// campaign editor, the playground's live preview and Wi-Fi form, axe-core clean.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Batch } from '../../src/domain/batches/batch.js';
import { periodOf } from '../../src/domain/period.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { createCode, getCode } from '../../src/services/dynamic-codes.js';
import { USER_AGENTS } from '../helpers/codes.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { waitFor } from '../helpers/wait.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { seriousAxeViolations } from '../helpers/axe.js';
import { desktopPage, launchChromium } from '../helpers/chromium.js';
import { freePort } from '../helpers/processes.js';
import { pngItems, queuedBatch } from '../helpers/render-fixtures.js';

const WAIT_MS = 15_000;
const WIDTHS = [390, 1280] as const;
const EMAIL = 'pages@example.com';

let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let accountId: string;
const errors: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ env: { PUBLIC_URL: base } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const deps = { ...t.stores, keyPepper: t.config.keyPepper, clock: () => t.clock.now };
  accountId = (await createLocalAccount(deps, EMAIL, 'business')).id;
  browser = await launchChromium();
  page = await desktopPage(browser, WAIT_MS);
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${base}/portal/signin`);
  await page.locator('#email').fill(EMAIL);
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await page.waitForURL(`${base}/portal/`);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A running batch written straight to the store: nothing renders it, the test moves its items. */
async function runningBatch(total: number): Promise<Batch> {
  const batch = queuedBatch(accountId, total, t.clock.now);
  await t.stores.batches!.create(
    batch,
    pngItems(batch, (index) => `https://example.com/${index}`),
  );
  await t.stores.batches!.markRunning(batch.id, t.clock.now);
  return batch;
}

async function finish(batch: Batch, from: number, to: number): Promise<void> {
  const items = Array.from({ length: to - from }, (_, i) => ({ index: from + i, state: 'succeeded' as const }));
  await t.stores.batches!.finishItems(batch.id, items, t.clock.now);
}

/** Pixels of a chart's canvas in the bars' colour (the portal's accent, #2f5bea): none when nothing was drawn. */
async function barPixels(p: Page, selector: string): Promise<number> {
  return p.locator(selector).evaluate((canvas: HTMLCanvasElement) => {
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (
        data[i + 3]! > 200 &&
        Math.abs(data[i]! - 0x2f) < 24 &&
        Math.abs(data[i + 1]! - 0x5b) < 24 &&
        Math.abs(data[i + 2]! - 0xea) < 24
      )
        count++;
    }
    return count;
  });
}

/** Whether the element lies wholly inside the viewport's width, as the page is scrolled now. */
async function onScreen(p: Page, selector: string): Promise<boolean> {
  return p.locator(selector).evaluate((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.left >= 0 && box.right <= window.innerWidth;
  });
}

/**
 * A case run at each of WIDTHS on the page resized to it; after its body, the page fits the width, axe-core finds no
 * serious violation, and the page logged no error.
 */
function atEachWidth(name: string, body: (width: number) => Promise<void>, timeoutMs = 60_000): void {
  it.each(WIDTHS)(
    name,
    async (width) => {
      await page.setViewportSize({ width, height: 900 });
      await body(width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    },
    timeoutMs,
  );
}

describe('the portal pages in Chromium', () => {
  atEachWidth(
    'moves a running batch’s bar in place at %i px: the CSV being typed survives, Download appears on-screen',
    async (width) => {
      const batch = await runningBatch(10);
      const row = `tr[data-batch="${batch.id}"]`;
      let navigations = 0;
      const counted = (frame: unknown) => {
        if (frame === page.mainFrame()) navigations++;
      };
      await page.goto(`${base}/portal/batches`);
      page.on('framenavigated', counted);
      try {
        const typed = `content,type,outputFormat\nhttps://example.com/typed-at-${width},url,png`;
        await page.locator('textarea[name="csv"]').fill(typed);
        expect(await onScreen(page, `${row} progress`)).toBe(true);
        expect(await onScreen(page, `${row} button:has-text("Cancel")`)).toBe(true);

        await finish(batch, 0, 4);
        await page.locator(`${row} progress[value="4"]`).waitFor();
        await expect(page.locator(`${row} progress`).getAttribute('aria-label')).resolves.toBe(
          'Running: 4 of 10 items done',
        );
        await expect(page.locator(`${row} [data-summary]`).innerText()).resolves.toBe('4 rendered of 10');

        await finish(batch, 4, 10);
        await page.locator(`${row} a:has-text("Download ZIP")`).waitFor();
        await expect(page.locator(`${row} [data-status]`).innerText()).resolves.toBe('completed');
        await expect(page.locator(`${row} progress`).getAttribute('class')).resolves.toBe('batch-completed');
        await expect(page.locator(`${row} a:has-text("Download ZIP")`).getAttribute('href')).resolves.toBe(
          `/portal/batches/${batch.id}/archive`,
        );
        expect(await onScreen(page, `${row} progress`)).toBe(true);
        expect(await onScreen(page, `${row} a:has-text("Download ZIP")`)).toBe(true);

        // Nothing reloaded: the text box still holds what was typed.
        await expect(page.locator('textarea[name="csv"]').inputValue()).resolves.toBe(typed);
        expect(navigations).toBe(0);
      } finally {
        page.off('framenavigated', counted);
      }
    },
  );

  atEachWidth(
    'shows a code’s own image, unbilled, and saves its expiry and scan limit from the form at %i px',
    async (width) => {
      const deps = { codes: t.stores.codes, clock: () => t.clock.now, plans: t.plans };
      const code = await createCode(
        deps,
        { accountId, plan: 'business' },
        { target: 'https://example.com/menu', name: `Menu at ${width}` },
      );
      for (let i = 0; i < 8; i++)
        await t.app.inject({
          method: 'GET',
          url: `/r/${code.slug}`,
          remoteAddress: `10.9.0.${i}`,
          headers: { 'user-agent': USER_AGENTS.ios },
        });
      await t.stores.scans.flush();
      const usage = () => t.stores.meter.usage(accountId, periodOf(t.clock.now));
      const before = await usage();

      await page.goto(`${base}/portal/codes/${code.id}`);
      const image = page.locator('img.code-preview');
      await expect(image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).resolves.toBe(true);
      expect(await onScreen(page, 'img.code-preview')).toBe(true);
      const png = await page.request.get(`${base}/portal/codes/${code.id}/preview.png`);
      expect(await decodeQr(await png.body(), 'png')).toEqual(readByAll(`${base}/r/${code.slug}`));
      expect(await usage()).toEqual(before);

      // Chart.js draws the bars (pixels in the accent colour) on each chart's canvas, its figures in the table beside
      // it.
      await page.locator('#chart-scans.drawn').waitFor();
      expect(await barPixels(page, '#chart-scans canvas')).toBeGreaterThan(20);
      expect(await barPixels(page, '#chart-devices canvas')).toBeGreaterThan(20);
      await expect(page.locator('#chart-scans tr[data-value="8"]').count()).resolves.toBe(1);
      expect(await onScreen(page, '#chart-scans canvas')).toBe(true);

      await page.locator('#campaign-expires').fill('2031-12-31T23:30');
      await page.locator('#campaign-max-scans').fill('500');
      await page.getByRole('button', { name: 'Save campaign' }).click();
      await page.getByText('Campaign settings saved').waitFor();
      await expect(page.locator('[data-field="expiresAt"]').innerText()).resolves.toBe('2031-12-31 23:30:00 UTC');
      await expect(page.locator('[data-field="maxScans"]').innerText()).resolves.toBe('500 scans');
      await expect(page.locator('#campaign-max-scans').inputValue()).resolves.toBe('500');
      expect((await getCode(deps, accountId, code.id)).routing).toMatchObject({
        expiresAt: '2031-12-31T23:30:00.000Z',
        maxScans: 500,
      });
    },
  );

  atEachWidth(
    'previews the playground live without billing, and makes a Wi-Fi code from its form at %i px',
    async (width) => {
      const usage = () => t.stores.meter.usage(accountId, periodOf(t.clock.now));
      const before = await usage();
      await page.goto(`${base}/portal/playground`);
      const preview = page.locator('img#live-preview');
      await preview.waitFor();
      const shown = async () => Buffer.from((await preview.getAttribute('src'))!.split(',')[1]!, 'base64');
      const previewReads = (text: string) =>
        waitFor(`the live preview to read ${text}`, async () => (await decodeQr(await shown(), 'png')).zbar === text, {
          timeoutMs: WAIT_MS,
          intervalMs: 200,
        });

      // Typing redraws the preview after a pause; what it shows decodes to what was typed.
      await page.locator('#type').selectOption('text');
      await page.locator('#content').fill(`Typed at ${width} px`);
      await page.locator('#preview-status:has-text("as it stands")').waitFor();
      await previewReads(`Typed at ${width} px`);
      await page.locator('#content').fill(`Typed again at ${width} px`);
      await previewReads(`Typed again at ${width} px`);
      expect(await usage()).toEqual(before);

      // The Wi-Fi form: the type's own fields, from the API's schema; Generate makes the WIFI: payload.
      await page.locator('#type').selectOption('wifi');
      await expect(page.locator('fieldset[data-content-type="wifi"]').isVisible()).resolves.toBe(true);
      await expect(page.locator('fieldset[data-content-type="vcard"]').isVisible()).resolves.toBe(false);
      await page.getByLabel('Ssid').fill(`Guest ${width}`);
      await page.getByLabel('Password (optional)').fill('s3cret;pass');
      await page.locator('#field-wifi-encryption').selectOption('WPA');
      const payload = `WIFI:T:WPA;S:Guest ${width};P:s3cret\\;pass;;`;
      await previewReads(payload);
      await page.getByRole('button', { name: 'Generate' }).click();
      await page.locator('img.generated').waitFor();
      const generated = Buffer.from(
        (await page.locator('img.generated').getAttribute('src'))!.split(',')[1]!,
        'base64',
      );
      expect(await decodeQr(generated, 'png')).toEqual(readByAll(payload));
      expect((await usage()).requests).toBe(before.requests + 1);
    },
    90_000,
  );

  it('answers a running batch’s progress as JSON only to its own account', async () => {
    const batch = await runningBatch(3);
    const own = await page.request.get(`${base}/portal/api/batch-progress?ids=${batch.id},bat_unknown`);
    expect(own.status()).toBe(200);
    expect(await own.json()).toEqual({
      items: [
        {
          id: batch.id,
          status: 'running',
          done: 0,
          total: 3,
          finished: false,
          label: 'Running: 0 of 3 items done',
          summary: '0 rendered of 3',
          archiveUrl: null,
        },
      ],
    });
    const signedOut = await fetch(`${base}/portal/api/batch-progress?ids=${batch.id}`);
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const unknownField = await page.request.get(`${base}/portal/api/batch-progress?ids=${batch.id}&foo=1`);
    expect(unknownField.status()).toBe(400);
  });
  atEachWidth(
    'draws the dashboard’s usage, scans, devices and countries charts beside their tables, axe-core clean, at %i px',
    async (width) => {
      const deps = { codes: t.stores.codes, clock: () => t.clock.now, plans: t.plans };
      const code = await createCode(
        deps,
        { accountId, plan: 'business' },
        { target: 'https://example.com/dash', name: `Dashboard ${width}` },
      );
      const visitors = ['200.147.67.142', '200.147.67.143', '200.147.67.144', '8.8.8.8', '10.8.0.1'];
      const headers = { 'user-agent': USER_AGENTS.android };
      for (const ip of visitors) {
        await t.app.inject({ method: 'GET', url: `/r/${code.slug}`, remoteAddress: ip, headers });
      }
      await t.stores.scans.flush();
      await page.goto(`${base}/portal/`);
      for (const id of ['usage', 'scans', 'devices', 'countries']) {
        await page.locator(`#chart-${id}.drawn`).waitFor();
        expect(await barPixels(page, `#chart-${id} canvas`), id).toBeGreaterThan(20);
      }
      // The account's other tests scan from private addresses too: the rows are named, whatever their order.
      const countries = await page.locator('#chart-countries tbody th').allTextContents();
      expect(countries).toEqual(expect.arrayContaining(['Brazil (BR)', 'United States (US)', 'Not placed']));
      const brazil = page.locator('#chart-countries tr:has(th:text-is("Brazil (BR)"))');
      expect(Number(await brazil.getAttribute('data-value'))).toBeGreaterThanOrEqual(3);
      const topCodes = (await page.locator('table.top-codes').textContent()) ?? '';
      expect(topCodes, topCodes).toContain(`Dashboard ${width}`);
    },
  );
});
