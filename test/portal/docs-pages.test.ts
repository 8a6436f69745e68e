// The guides (docs/*.md) are served by the portal in its own look, every docs page a portal page names is a link that
// answers, and no request reaches a file by its path.
import { readdir } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();
let owner: PortalClient;
const pages = new Map<string, string>(); // portal page → its HTML, as the owner sees it

beforeAll(async () => {
  owner = new PortalClient(t.app);
  await owner.signInLocally('docs-owner@example.com');
  const dashboard = await owner.get('/portal/');
  const nav = /<nav aria-label="Portal">([\s\S]*?)<\/nav>/.exec(dashboard.body)![1]!;
  const urls = [...nav.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);
  // A dynamic code's page too: it names the campaign guide.
  const _csrf = await owner.csrfFrom('/portal/codes');
  const created = await owner.postForm('/portal/codes', { _csrf, target: 'https://example.com/docs-test' });
  expect(created.statusCode).toBe(303);
  urls.push(created.headers.location as string);
  for (const url of urls) {
    const res = await owner.get(url);
    expect(res.statusCode, url).toBe(200);
    pages.set(url, res.body);
  }
  pages.set('/portal/signin', (await new PortalClient(t.app).get('/portal/signin')).body);
});

/** The page's HTML without its links: what is left names a docs page only as plain text. */
const withoutLinks = (html: string) => html.replace(/<a\b[^>]*>[\s\S]*?<\/a>/g, '');

describe('docs pages named by the portal', () => {
  it('are links, never plain text, on every page', () => {
    let named = 0;
    for (const [url, html] of pages) {
      named += [...html.matchAll(/<a href="\/portal\/docs\/[a-z-]+/g)].length;
      expect(withoutLinks(html), url).not.toMatch(/docs\/[\w-]+\.md/);
    }
    expect(named).toBeGreaterThanOrEqual(5);
  });

  it('answer 200 with the guide in the portal layout', async () => {
    const links = new Set([...pages.values()].flatMap((html) => [...html.matchAll(/href="(\/portal\/docs\/[^"]*)"/g)]));
    const hrefs = [...links].map((match) => match[1]!);
    expect(hrefs).toEqual(expect.arrayContaining(['/portal/docs/teams', '/portal/docs/']));
    for (const href of new Set(hrefs)) {
      const res = await owner.get(href);
      expect(res.statusCode, href).toBe(200);
      expect(res.headers['content-type'], href).toMatch(/^text\/html/);
      expect(res.body, href).toContain('<header class="topbar portal">');
      expect(res.body, href).toContain('/portal/assets/portal.css');
    }
  });
});

describe('the guides', () => {
  it('serves every docs/*.md page to a signed-out browser too, headings anchored, links kept inside', async () => {
    const files = (await readdir('docs')).filter((file) => file.endsWith('.md'));
    expect(files.length).toBeGreaterThan(10);
    const visitor = new PortalClient(t.app);
    const index = await visitor.get('/portal/docs/');
    expect(index.statusCode).toBe(200);
    for (const file of files) {
      const name = file.slice(0, -3);
      expect(index.body, file).toContain(`href="/portal/docs/${name}"`);
      const res = await visitor.get(`/portal/docs/${name}`);
      expect(res.statusCode, file).toBe(200);
      expect(res.body, file).toMatch(/<h1 id="[^"]+">/);
      // Links to other guides stay in the portal; none points at a .md file the service does not serve.
      expect(res.body, file).not.toMatch(/href="[^"#]*\.md/);
    }
    const teams = await visitor.get('/portal/docs/cli');
    expect(teams.body).toContain('href="/portal/docs/teams#api-keys-scopes-and-expiry"');
    const anchored = await visitor.get('/portal/docs/teams');
    expect(anchored.body).toContain('id="api-keys-scopes-and-expiry"');
  });

  it.each([
    '/portal/docs/no-such-guide',
    '/portal/docs/teams.md',
    '/portal/docs/..%2Fpackage.json',
    '/portal/docs/%2e%2e%2fREADME',
    '/portal/docs/..%2F..%2Fetc%2Fpasswd',
    '/portal/docs/../README.md',
    '/portal/docs/decisions%2Fbatch-group-size',
    '/portal/docs/constructor',
    '/portal/docs/__proto__',
  ])('answers %s with a 404 page', async (url) => {
    const res = await owner.get(url);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).not.toContain('"name": "qr-manager"');
    expect(res.body).not.toContain('root:');
  });

  it('keeps the CSP strict: no inline script or style', async () => {
    const res = await owner.get('/portal/docs/portal');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("style-src 'self'");
    expect(res.body).not.toMatch(/<script>|<style|style="/);
  });
});
