// The whole invitation flow in Chromium at 390 and 1280 px: an owner invites a viewer on the Members page, the invitee
// opens the link, signs in locally, joins with one click, sees the joined account, switches accounts, and cannot
// make a key there; the invitation pages are axe-core clean.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalAccount } from '../../src/services/accounts.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { seriousAxeViolations } from '../helpers/axe.js';
import { CHROMIUM_ARGS } from '../helpers/chromium.js';
import { freePort } from '../helpers/processes.js';

const WAIT_MS = 15_000;
const WIDTHS = [390, 1280] as const;

let t: TestApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ env: { PUBLIC_URL: base } });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A fresh browser context (its own cookies) at `width`, signed in locally as `email`. */
async function signedIn(email: string, width: number) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(`${base}/portal/signin`);
  await page.locator('#email').fill(email);
  await page.getByRole('button', { name: 'Sign in locally' }).click();
  await page.waitForURL(`${base}/portal/`);
  return { context, page };
}

describe.each(WIDTHS)('the invitation flow at %i px', (width) => {
  it('invites a viewer, who signs in from the link, joins, switches accounts and cannot make a key', async () => {
    const ownerEmail = `owner-${width}-${Date.now()}@example.com`;
    const viewerEmail = `viewer-${width}-${Date.now()}@example.com`;
    const deps = { ...t.stores, keyPepper: t.config.keyPepper, clock: () => t.clock.now };
    await createLocalAccount(deps, ownerEmail, 'pro');

    const owner = await signedIn(ownerEmail, width);
    await owner.page.goto(`${base}/portal/members`);
    await owner.page.locator('#invite-email').fill(viewerEmail);
    await owner.page.locator('#invite-role').selectOption('viewer');
    await owner.page.getByRole('button', { name: 'Invite' }).click();
    const acceptUrl = await owner.page.locator('#accept-url').inputValue();
    expect(acceptUrl).toMatch(new RegExp(`^${base}/portal/invitations/`));
    await owner.context.close();

    // The invitee, signed out, opens the link: the page names the role and offers the sign-in.
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(acceptUrl);
    expect(await page.locator('main').textContent()).toContain('viewer');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: `Sign in as ${viewerEmail} to join` }).click();
    await page.locator('#email').fill(viewerEmail);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    // Back on the invitation, signed in: one click joins.
    await page.waitForURL(acceptUrl);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Join the account' }).click();
    await page.waitForURL(`${base}/portal/`);
    expect(await page.locator('#account-in-use').textContent()).toBe(ownerEmail);
    expect(await page.locator('#role-in-use').textContent()).toBe('viewer');

    // Switches to its own account and back.
    const switchTo = async (email: string) => {
      const option = page.locator('#switch-account option', { hasText: email });
      await page.locator('#switch-account').selectOption((await option.getAttribute('value'))!);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Switch' }).click()]);
      expect(await page.locator('#account-in-use').textContent()).toBe(email);
    };
    await switchTo(viewerEmail);
    await switchTo(ownerEmail);

    // The viewer's portal offers no key form, and its JSON API refuses to make one.
    await page.goto(`${base}/portal/keys`);
    expect(await page.getByRole('heading', { name: 'Create a key' }).count()).toBe(0);
    const refused = await page.evaluate(async () => {
      const session = await (await fetch('/portal/api/session')).json();
      const res = await fetch('/portal/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: JSON.stringify({ name: 'mine' }),
      });
      return { status: res.status, body: await res.json() };
    });
    expect(refused).toMatchObject({ status: 403, body: { code: 'insufficient_role', requiredRole: 'developer' } });
    await context.close();
  }, 90_000);
});
