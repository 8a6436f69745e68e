// Every portal page with data in it, in headless Chromium at 390 and 1280 px: nothing overflows, the nav is one row,
// headers are named, inputs match, axe finds nothing serious.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Batch } from '../../src/domain/batches/batch.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey, revokeKey } from '../../src/services/api-keys.js';
import { createTestApp, GENERATE_URL, type TestApp } from '../helpers/app.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';
import { freePort } from '../helpers/processes.js';
import { pngItems, queuedBatch } from '../helpers/render-fixtures.js';
import { desktopPage, launchChromium } from '../helpers/chromium.js';
import { seriousAxeViolations } from '../helpers/axe.js';

const SCREENSHOTS = join(process.cwd(), 'test-output', 'screenshots', 'layout');
const WAIT_MS = 15_000;
const WIDTHS = [390, 1280] as const;
const EMAIL = 'a.very.long.address.for.layout@example-company-with-a-long-name.com';
/** Computed properties a url, number (or any other text-like) field must share with a text field. */
const FIELD_LOOK = [
  'border-top-width',
  'border-top-style',
  'border-top-color',
  'border-radius',
  'padding-left',
  'padding-top',
  'font-size',
  'font-family',
  'background-color',
];

let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let codeId = '';
const seeded: Record<'completed' | 'cancelled' | 'failed', Batch> = {} as never;

/**
 * A batch written straight to the store (nothing renders it: the in-process runner queues only what is enqueued), its
 * items moved as given.
 */
async function storedBatch(
  accountId: string,
  total: number,
  finish: { succeeded: number; failed: number },
  cancel: boolean,
): Promise<Batch> {
  const now = t.clock.now;
  const batch = queuedBatch(accountId, total, now);
  const items = pngItems(batch, (index) => `https://example.com/${index}`);
  const batches = t.stores.batches!;
  await batches.create(batch, items);
  await batches.markRunning(batch.id, now);
  const moved = [
    ...Array.from({ length: finish.succeeded }, (_, index) => ({ index, state: 'succeeded' as const })),
    ...Array.from({ length: finish.failed }, (_, i) => ({
      index: finish.succeeded + i,
      state: 'failed' as const,
      errorCode: 'unscannable_design',
    })),
  ];
  let latest = (await batches.finishItems(batch.id, moved, now)).batch;
  if (cancel) latest = (await batches.cancel(accountId, batch.id, now))!.batch;
  return latest;
}

async function seed(): Promise<void> {
  const deps = { ...t.stores, keyPepper: t.config.keyPepper, clock: () => t.clock.now };
  const account = await createLocalAccount(deps, EMAIL, 'business');
  const { secret } = await issueKey(deps, account.id, 'Production server in the Frankfurt data centre (primary)');
  await issueKey(deps, account.id, 'Staging');
  await revokeKey(deps, account.id, (await issueKey(deps, account.id, 'Old laptop')).key.id);
  const api = (method: 'POST', url: string, body: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { 'x-api-key': secret, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  for (const [content, type] of [
    [
      'https://example.com/a/rather/long/path/that/goes/on/and/on?utm_source=print&utm_medium=poster&utm_campaign=autumn',
      'url',
    ],
    ['Hello from the layout test', 'text'],
  ] as const) {
    expect((await api('POST', GENERATE_URL, { content, type, outputFormat: 'png' })).statusCode).toBe(200);
  }
  expect((await uploadLogo(t.app, secret, await logoPng(), 'image/png')).statusCode).toBe(201);
  const code = await api('POST', '/api/v1/QRManager/codes', {
    target: 'https://example.com/menu/a-long-target-url-for-the-autumn-campaign?table=12&lang=en',
    name: 'Table menu',
    rules: [
      {
        if: { device: ['ios'], language: ['de', 'fr'] },
        target: 'https://apps.apple.com/app/id000000000-a-long-app-store-link',
      },
    ],
  });
  expect(code.statusCode).toBe(201);
  codeId = (code.json() as { id: string }).id;
  expect((await api('POST', '/api/v1/QRManager/codes', { target: 'https://example.com/b' })).statusCode).toBe(201);
  expect(
    (
      await api('POST', '/api/v1/QRManager/designs', {
        name: 'Brand navy',
        options: { darkColor: '#1D3557', errorCorrection: 'Q', margin: 2 },
      })
    ).statusCode,
  ).toBe(201);
  expect((await api('POST', '/api/v1/QRManager/signing-keys', { name: 'Newsletter images' })).statusCode).toBe(201);
  for (const hostname of ['go.example.com', 'scan.a-rather-long-subdomain-name.example-company-with-a-long-name.com']) {
    expect((await api('POST', '/api/v1/QRManager/domains', { hostname })).statusCode).toBe(201);
  }

  seeded.completed = await storedBatch(account.id, 3, { succeeded: 3, failed: 0 }, false);
  seeded.cancelled = await storedBatch(account.id, 40, { succeeded: 10, failed: 2 }, true);
  seeded.failed = await storedBatch(account.id, 4, { succeeded: 0, failed: 4 }, false);
  expect([seeded.completed.status, seeded.cancelled.status, seeded.failed.status]).toEqual([
    'completed',
    'cancelled',
    'failed',
  ]);
}

beforeAll(async () => {
  await rm(SCREENSHOTS, { recursive: true, force: true });
  await mkdir(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ env: { PUBLIC_URL: base } });
  await t.app.listen({ port, host: '127.0.0.1' });
  await seed();
  browser = await launchChromium();
  page = await desktopPage(browser, WAIT_MS);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

interface Layout {
  scrollWidth: number;
  innerWidth: number;
  /** Elements wider than the viewport's right edge (tag.class and how far out), for the failure message. */
  outside: string[];
  navTops: number[];
  /** The current page's nav link lies wholly inside the viewport (null: no link is current, e.g. a code's own page). */
  currentLinkInView: boolean | null;
  unnamedHeaders: string[];
  /** `secret`: a textarea (CSV, content) or a shown-once secret, set in monospace (and a secret tinted) on purpose. */
  fields: { type: string; secret: boolean; look: Record<string, string> }[];
}

/** What the page looks like to the assertions, measured in the browser. */
function measure(p: Page, look: string[]): Promise<Layout> {
  return p.evaluate((properties) => {
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}` +
      `${el.className && typeof el.className === 'string' ? '.' + el.className.trim().replace(/\s+/g, '.') : ''}`;
    const outside = [...document.querySelectorAll('body *')]
      .filter(
        (el) => el.getBoundingClientRect().right > window.innerWidth + 0.5 && el.closest('.table-scroll, nav') === null,
      )
      .slice(0, 8)
      .map((el) => `${describe(el)} → ${Math.round(el.getBoundingClientRect().right)}`);
    const navTops = [...document.querySelectorAll('header nav a')].map((a) => (a as HTMLElement).offsetTop);
    const current = document.querySelector('header nav a[aria-current="page"]')?.getBoundingClientRect();
    const currentLinkInView = current ? current.left >= 0 && current.right <= window.innerWidth : null;
    const unnamedHeaders = [...document.querySelectorAll('th')]
      .filter((th) => (th.textContent ?? '').trim() === '' && !th.getAttribute('aria-label'))
      .map((th) => th.outerHTML);
    const fields = [
      ...document.querySelectorAll(
        'main input:not([type=hidden]):not([type=checkbox]):not([type=radio]), main select, main textarea',
      ),
    ].map((el) => {
      const style = getComputedStyle(el);
      return {
        type: el instanceof HTMLInputElement ? el.type : el.tagName.toLowerCase(),
        secret: el.matches('textarea, input.secret'),
        look: Object.fromEntries(properties.map((name) => [name, style.getPropertyValue(name)])),
      };
    });
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      outside,
      navTops,
      currentLinkInView,
      unnamedHeaders,
      fields,
    };
  }, look);
}

interface BarPixels {
  /** The colour (hex) a little in from the bar's left end, and a little in from its right end. */
  start: string;
  end: string;
}

async function pixels(png: Buffer): Promise<BarPixels> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x: number) => {
    const offset = (Math.floor(info.height / 2) * info.width + x) * 3;
    return [...data.subarray(offset, offset + 3)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  };
  return { start: at(8), end: at(info.width - 8) };
}

describe('the portal layout in Chromium at 390 and 1280 px', () => {
  it(
    'fits every page with data in it, keeps the nav on one row at 1280, names every header, styles every field ' +
      'alike, and passes axe',
    async () => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      const problems: string[] = [];
      const textLook = new Map<number, Record<string, string>>();
      const compared = new Set<string>();

      /** Screenshots the page as it is, and notes everything wrong with its layout. */
      const check = async (width: number, name: string) => {
        await page.screenshot({ path: join(SCREENSHOTS, `${width}-${name}.png`), fullPage: true });
        const layout = await measure(page, FIELD_LOOK);
        const at = `${name} at ${width} px`;
        if (layout.scrollWidth > layout.innerWidth)
          problems.push(`${at}: the document is ${layout.scrollWidth} px wide (${layout.outside.join('; ')})`);
        if (width === 1280 && new Set(layout.navTops).size > 1)
          problems.push(`${at}: the nav wraps (link tops ${[...new Set(layout.navTops)].join(', ')})`);
        // On a phone the nav scrolls sideways: the page's own link is scrolled into view.
        if (layout.currentLinkInView === false)
          problems.push(`${at}: the current page's nav link is scrolled out of view`);
        for (const header of layout.unnamedHeaders) problems.push(`${at}: a table header without text: ${header}`);
        for (const field of layout.fields) {
          if (field.type === 'text' && !field.secret && !textLook.has(width)) textLook.set(width, field.look);
          const reference = textLook.get(width);
          if (!reference || field.type === 'file' || field.type === 'color') continue;
          compared.add(field.type);
          for (const property of FIELD_LOOK) {
            if (field.secret && (property.startsWith('font-') || property === 'background-color')) continue;
            if (field.look[property] !== reference[property])
              problems.push(
                `${at}: a ${field.type} field's ${property} is ${field.look[property]}, a text field's ` +
                  `${reference[property]}`,
              );
          }
        }
        for (const violation of await seriousAxeViolations(page)) problems.push(`${at}: axe ${violation}`);
      };

      // Local sign-in (no provider is configured, and the browser is on this machine), into the seeded account.
      await page.goto(`${base}/portal/signin`);
      await page.locator('#email').fill(EMAIL);
      await page.getByRole('button', { name: 'Sign in locally' }).click();
      await page.waitForURL(`${base}/portal/`);

      // Every page the nav links to (pages added later are covered too), and a dynamic code's own page.
      const navPaths = await page
        .locator('header nav a')
        .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
      expect(navPaths).toEqual(
        expect.arrayContaining([
          '/portal/',
          '/portal/keys',
          '/portal/qrs',
          '/portal/logos',
          '/portal/codes',
          '/portal/batches',
          '/portal/plans',
        ]),
      );
      const pages = [
        ...navPaths.map((path) => ({ path, name: path.split('/').filter(Boolean).slice(1).join('-') || 'dashboard' })),
        { path: `/portal/codes/${encodeURIComponent(codeId)}`, name: 'code' },
      ];
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        for (const { path, name } of pages) {
          const response = await page.goto(`${base}${path}`);
          expect(response?.status(), path).toBe(200);
          await check(width, name);
        }
        // The page a new key's secret is shown on, once.
        await page.goto(`${base}/portal/keys`);
        await page.getByPlaceholder('Name, e.g. production server').fill(`Made at ${width} px`);
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.locator('#secret').waitFor();
        await check(width, 'key-created');
        // The playground with a generated code, read back.
        await page.goto(`${base}/portal/playground`);
        await page.locator('#type').selectOption('url');
        await page
          .locator('#content')
          .fill(`https://example.com/playground/a-long-path-to-read-back-at-${width}-px?campaign=autumn&medium=poster`);
        await page.getByRole('button', { name: 'Generate' }).click();
        await page.locator('img.generated').waitFor();
        await page.getByRole('button', { name: 'Read it back' }).click();
        await page.locator('table.decoded').first().waitFor();
        await check(width, 'playground-read-back');
      }
      // The cancelled batch shows how far it got, not a full bar, and says it was cancelled; a failed one says so too.
      await page.goto(`${base}/portal/batches`);
      const bar = (batch: Batch) => page.locator(`tr[data-batch="${batch.id}"] progress`);
      const cancelled = await bar(seeded.cancelled).evaluate((el: HTMLProgressElement) => ({
        value: el.value,
        max: el.max,
        label: el.getAttribute('aria-label'),
        className: el.className,
      }));
      expect(cancelled).toEqual({
        value: 12,
        max: 40,
        label: 'Cancelled: 12 of 40 items done, 28 cancelled',
        className: 'batch-cancelled',
      });
      const failed = await bar(seeded.failed).evaluate((el: HTMLProgressElement) => ({
        value: el.value,
        max: el.max,
        label: el.getAttribute('aria-label'),
        className: el.className,
      }));
      expect(failed).toEqual({ value: 4, max: 4, label: 'Failed: 4 of 4 items done', className: 'batch-failed' });
      // As drawn: the cancelled bar is filled at its start and empty at its end, and each ending has its own colour.
      const drawn = await Promise.all(
        [seeded.completed, seeded.cancelled, seeded.failed].map(async (batch) => pixels(await bar(batch).screenshot())),
      );
      const [completedBar, cancelledBar, failedBar] = drawn as [BarPixels, BarPixels, BarPixels];
      expect(completedBar.end).toBe(completedBar.start);
      expect(cancelledBar.end).not.toBe(cancelledBar.start);
      expect(failedBar.end).toBe(failedBar.start);
      expect(new Set([completedBar.start, cancelledBar.start, failedBar.start]).size).toBe(3);

      // Signed out: the sign-in page.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${base}/portal/signin`);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${base}/portal/signin`);
        await check(width, 'signin');
      }
      expect(problems).toEqual([]);
      // Dynamic codes and the Playground have url and number fields, sign-in an email one: compared with a text field.
      expect([...compared]).toEqual(expect.arrayContaining(['text', 'url', 'number', 'email', 'select', 'textarea']));

      expect(errors).toEqual([]);
    },
    180_000,
  );
});
