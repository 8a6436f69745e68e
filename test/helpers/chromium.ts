// Headless Chromium for the browser tests: the system's binary, quiet and offline but for the pages a test opens.
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches the system's Chromium headless; fails if it has not started within 30 s. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true, timeout: 30_000 });
}

/** A page of 1280 × 900 px on which every wait and navigation gives up after `waitMs`. */
export async function desktopPage(browser: Browser, waitMs: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(waitMs);
  page.setDefaultNavigationTimeout(waitMs);
  return page;
}
