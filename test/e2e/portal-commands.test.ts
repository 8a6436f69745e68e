// Every command the portal prints works as printed: the pages are rendered as their reader sees them, the commands
// taken out of the HTML and run by bash (qrm lines in the checkout, on the server's own database), and what each
// says it does is checked.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { PortalClient } from '../helpers/portal-client.js';

const exec = promisify(execFile);

let dataDir: string;
let curlDir: string;
let t: TestApp;
let origin: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-portal-commands-'));
  curlDir = await mkdtemp(join(tmpdir(), 'qrm-portal-curl-'));
  // The portal and `npm run qrm` share the SQLite file in QR_DATA_DIR, as a server and its operator do.
  t = await createTestApp({ dataDir });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(curlDir, { recursive: true, force: true });
});

/** The text of every `<code>` element of a page, entities decoded: what a reader copies. */
function codeTexts(html: string): string[] {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
  return [...html.matchAll(/<code[^>]*>([\s\S]*?)<\/code>/g)].map((match) =>
    match[1]!.replace(/&(amp|lt|gt|quot|#39);/g, (_all, name: string) => entities[name]!),
  );
}

/** The shell commands among them: what starts like something a reader would paste into a terminal. */
function commandsIn(html: string): string[] {
  return codeTexts(html).filter((text) => /^(npm|npx|node|curl|qrm)\s/.test(text));
}

/** Runs one printed command as a reader would: qrm lines from the checkout, the rest from an empty directory. */
async function run(command: string): Promise<string> {
  const inCheckout = command.startsWith('npm ');
  // Minutes, not seconds: `npm run qrm` rebuilds dist/ first when a source is newer than it.
  const options = {
    cwd: inCheckout ? process.cwd() : curlDir,
    env: { ...process.env, QR_DATA_DIR: dataDir },
    timeout: 300_000,
  };
  const { stdout } = await exec('bash', ['-c', `set -euo pipefail\n${command}`], options).catch(
    (error: { stdout: string; stderr: string }) => {
      throw new Error(`${command} failed:\n${error.stdout}\n${error.stderr}`);
    },
  );
  return stdout;
}

/** A browser on this machine addressing the listening server by its own name and port. */
const browserHeaders = () => ({ host: new URL(origin).host, origin });

describe('the commands the portal prints', () => {
  const printed = new Map<string, string>(); // command → the page that printed it
  let owner: PortalClient;
  let accountId: string;

  it('are collected from the sign-in page, every page of the navigation and a new key', async () => {
    const visitor = new PortalClient(t.app);
    for (const command of commandsIn((await visitor.get('/portal/signin')).body)) printed.set(command, 'signin');

    owner = new PortalClient(t.app);
    await owner.signInLocally('owner@example.com');
    const dashboard = await owner.get('/portal/');
    expect(dashboard.statusCode).toBe(200);
    accountId = (await t.stores.accounts.findByEmail('owner@example.com'))[0]!.id;
    const nav = /<nav aria-label="Portal">([\s\S]*?)<\/nav>/.exec(dashboard.body)![1]!;
    const pages = [...nav.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);
    expect(pages).toContain('/portal/plans');
    for (const page of pages) {
      const res = await owner.get(page);
      expect(res.statusCode, page).toBe(200);
      for (const command of commandsIn(res.body)) printed.set(command, page);
    }
    // A new key's page prints a ready curl for the address the browser used.
    const _csrf = await owner.csrfFrom('/portal/keys');
    const created = await owner.postForm('/portal/keys', { name: 'commands', _csrf }, browserHeaders());
    expect(created.statusCode).toBe(201);
    for (const command of commandsIn(created.body)) printed.set(command, 'key-created');

    const commands = [...printed.keys()];
    expect(
      commands.filter((command) => command.startsWith('qrm ')),
      'a bare qrm is not on the PATH',
    ).toEqual([]);
    expect(commands.some((command) => command.includes(' accounts plan '))).toBe(true);
    expect(commands.some((command) => command.startsWith('curl '))).toBe(true);
    expect(commands.some((command) => command.includes(' accounts create '))).toBe(true);
  });

  it('each runs as printed and does what its page says', { timeout: 600_000 }, async () => {
    expect(printed.size).toBeGreaterThan(0);
    for (const [command, page] of printed) {
      const stdout = await run(command);
      if (command.includes(' accounts plan ')) {
        // The Plans page: the operator moves this account to the plan it names.
        const plan = /--plan (\S+)/.exec(command)![1]!;
        expect(command).toContain(`--account ${accountId}`);
        expect(stdout).toContain(`plan=${plan}`);
        expect((await t.stores.accounts.findById(accountId))!.plan).toBe(plan);
        const plans = await owner.get('/portal/plans');
        expect(plans.body).toMatch(new RegExp(`class="card plan current" id="plan-${plan}"`));
      } else if (command.startsWith('curl ')) {
        // A new key's page: the curl writes a PNG of the example URL.
        const bytes = new Uint8Array(await readFile(join(curlDir, 'qr.png')));
        expect(await decodeQr(bytes, 'png')).toEqual(readByAll('https://example.com'));
      } else if (command.includes(' accounts create ')) {
        // The sign-in page: the command makes the account local sign-in with that address opens.
        const email = /--email (\S+)/.exec(command)![1]!;
        const [made] = await t.stores.accounts.findByEmail(email);
        expect(stdout).toContain(`account ${made!.id} ${email}`);
        const browser = new PortalClient(t.app);
        await browser.signInLocally(email);
        const session = await browser.get('/portal/api/session');
        expect(session.json()).toMatchObject({ account: { id: made!.id } });
      } else {
        throw new Error(`${page} prints a command this test does not check yet: ${command}`);
      }
    }
  });
});
