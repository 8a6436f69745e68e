// The API reference at /docs in Chromium: the portal's header and look over Swagger UI, its operations listed from the
// OpenAPI document, try-it-out working, at 390 and 1280 px, with nothing serious or critical for axe-core.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { seriousAxeViolations } from '../helpers/axe.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/chromium.js';
import { freePort } from '../helpers/processes.js';

let t: TestApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the API reference at /docs', () => {
  it.each([390, 1280])('shows the portal header and the operations at %i px', { timeout: 120_000 }, async (width) => {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const refused: string[] = [];
    page.on('console', (message) => {
      // Every script and stylesheet comes from this origin (Swagger UI's own inline style attributes stay refused).
      if (/Refused to (load|execute)/i.test(message.text())) refused.push(message.text());
    });
    const answer = await page.goto(`${base}/docs`);
    expect(answer!.status()).toBe(200);
    await page.locator('.opblock-summary-path').first().waitFor({ timeout: 60_000 });
    // The portal's header: its brand, and links back to the portal and to the guides.
    const header = page.locator('header.topbar.portal');
    await expect(header.isVisible()).resolves.toBe(true);
    await expect(header.locator('a.brand').getAttribute('href')).resolves.toBe('/portal/');
    await expect(header.locator('nav a[href="/portal/docs/"]').textContent()).resolves.toBe('Guides');
    // The portal's colours and fonts: the header's background and the page's font family are the portal's.
    const look = await page.evaluate(() => ({
      header: getComputedStyle(document.querySelector('header.topbar.portal')!).backgroundColor,
      font: getComputedStyle(document.querySelector('.swagger-ui')!).fontFamily,
      stylesheet: [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => (l as HTMLLinkElement).href),
    }));
    expect(look.header).toBe('rgb(17, 24, 39)');
    expect(look.font).toMatch(/^system-ui/);
    expect(look.stylesheet.every((href) => href.startsWith(base))).toBe(true);
    // The operations come from the OpenAPI document.
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    expect(paths.map((path) => path.replace(/\u200b/g, ''))).toContain('/api/v1/QRManager/generate');
    // Nothing wider than the screen but what scrolls inside Swagger UI's own blocks.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it(
    "draws the portal's header from the one stylesheet both link, as the portal draws it",
    { timeout: 120_000 },
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const headerOf = async (url: string) => {
        await page.goto(url);
        await page.locator('header.topbar.portal a.brand').waitFor({ timeout: 60_000 });
        return page.evaluate(() => {
          const style = (selector: string, properties: string[]) => {
            const computed = getComputedStyle(document.querySelector(selector)!);
            return properties.map((property) => computed.getPropertyValue(property));
          };
          return {
            stylesheets: [...document.querySelectorAll('link[rel=stylesheet]')].map(
              (l) => new URL((l as HTMLLinkElement).href).pathname,
            ),
            bar: style('header.topbar.portal', ['background-color', 'color', 'padding', 'font-family', 'display']),
            brand: style('header.topbar.portal a.brand', ['color', 'font-weight', 'gap', 'text-decoration-line']),
            logo: style('header.topbar.portal .logo', ['width', 'height', 'border-top-width', 'border-radius']),
            ink: getComputedStyle(document.documentElement).getPropertyValue('--ink'),
          };
        });
      };
      const reference = await headerOf(`${base}/docs`);
      const portal = await headerOf(`${base}/portal/signin`);
      const shared = reference.stylesheets.find((path) => path.endsWith('/portal-header.css'));
      expect(shared).toBeDefined();
      expect(portal.stylesheets).toContain('/portal/assets/portal-header.css');
      const [one, other] = await Promise.all([fetch(base + shared!), fetch(`${base}/portal/assets/portal-header.css`)]);
      expect(await one.text()).toBe(await other.text());
      expect({ ...reference, stylesheets: [] }).toEqual({ ...portal, stylesheets: [] });
      await page.close();
    },
  );

  it('keeps try-it-out working: /healthz answers from the page', { timeout: 120_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/docs`);
    const health = page.locator('.opblock-summary-path', { hasText: /^\/healthz$/ }).first();
    await health.waitFor({ timeout: 60_000 });
    await health.click();
    await page.locator('.try-out__btn').first().click();
    await page.locator('.btn.execute').first().click();
    const status = page.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    await expect(status.textContent()).resolves.toContain('200');
    await page.close();
  });
});
