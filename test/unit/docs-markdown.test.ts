// The docs renderer lets no markup through but what markdown makes, and keeps links between guides inside the portal.
import { describe, expect, it } from 'vitest';
import { docsRenderer, headingSlug } from '../../src/http/portal/docs-markdown.js';

const render = docsRenderer('/portal/docs', new Set(['teams', 'plans']));

describe('docs renderer', () => {
  it('escapes raw HTML in a page instead of passing it on', () => {
    const { html } = render('# T\n\n<script>alert(1)</script>\n\ntext <img src=x onerror="alert(1)"> more\n');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('makes no link of a javascript: or data: target, nor of a path outside the guides', () => {
    const { html } = render(
      '[a](javascript:alert(1)) [b](data:text/html,x) [c](../CONTRIBUTING.md) [d](decisions/x.md) [e](/etc/passwd)',
    );
    expect(html).not.toMatch(/<a /);
    expect(html).toContain('a');
    expect(html).toContain('c');
  });

  it('points links between guides at the portal, anchors kept, and anchors headings as GitHub does', () => {
    const { title, html } = render(
      '# Plans and quotas\n\nSee [roles](teams.md#roles), [plans](./plans.md), [the web](https://example.com/), ' +
        '[below](#api-keys-scopes-and-expiry).\n\n## API keys: scopes and expiry\n\n## API keys: scopes and expiry\n',
    );
    expect(title).toBe('Plans and quotas');
    expect(html).toContain('<a href="/portal/docs/teams#roles">roles</a>');
    expect(html).toContain('<a href="/portal/docs/plans">plans</a>');
    expect(html).toContain('<a href="https://example.com/">the web</a>');
    expect(html).toContain('<a href="#api-keys-scopes-and-expiry">below</a>');
    expect(html).toContain('<h2 id="api-keys-scopes-and-expiry">');
    expect(html).toContain('<h2 id="api-keys-scopes-and-expiry-1">');
    expect(headingSlug('The `qrm` admin command')).toBe('the-qrm-admin-command');
  });

  it('wraps tables in a region that scrolls on its own', () => {
    const { html } = render('| a | b |\n|---|---|\n| 1 | 2 |\n');
    expect(html).toMatch(/^<div class="table-scroll" role="region" aria-label="Table" tabindex="0"><table>/);
  });
});
