// The docs pages as HTML: markdown-it with raw HTML off, links between pages pointed at the portal, headings anchored.
import markdownIt, { type Token } from 'markdown-it';

/** A rendered docs page: its title (the first heading) and its body. */
export interface DocsPage {
  title: string;
  html: string;
}

/** GitHub's heading anchors, which the pages' own `page.md#anchor` links use. */
export function headingSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * Where a link in a docs page goes: another page (`teams.md#roles`) to its portal path, an anchor or an absolute
 * http(s) or mailto address as written; anything else (a file of the repository, a relative path) to nowhere, the
 * text kept.
 */
function linkTarget(href: string, pagesPath: string, pages: ReadonlySet<string>): string | undefined {
  if (href.startsWith('#') || /^(https?:|mailto:)/i.test(href)) return href;
  const page = /^(?:\.\/)?([a-z0-9-]+)\.md(#[^\s]*)?$/i.exec(href);
  if (page && pages.has(page[1]!)) return `${pagesPath}/${page[1]}${page[2] ?? ''}`;
  return undefined;
}

/** Turns a link that goes nowhere into its text: its open and close tokens are dropped. */
function unlink(children: Token[], open: number): void {
  let depth = 0;
  for (let i = open; i < children.length; i++) {
    const token = children[i]!;
    if (token.type === 'link_open') depth++;
    if (token.type === 'link_close' && --depth === 0) {
      children.splice(i, 1);
      children.splice(open, 1);
      return;
    }
  }
}

/**
 * A renderer for the docs: `html: false` escapes any raw HTML a page holds (no markup reaches the page but what
 * markdown makes), and markdown-it's own link check refuses `javascript:` and `data:` targets.
 */
export function docsRenderer(pagesPath: string, pages: ReadonlySet<string>): (markdown: string) => DocsPage {
  const md = markdownIt({ html: false, linkify: false, typographer: false });
  md.core.ruler.push('docs_links_and_anchors', (state) => {
    const tokens = state.tokens;
    const seen = new Map<string, number>();
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.type === 'heading_open') {
        const base = headingSlug(tokens[i + 1]?.content ?? '');
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        token.attrSet('id', count === 0 ? base : `${base}-${count}`);
      }
      if (token.type !== 'inline' || !token.children) continue;
      const children = token.children;
      for (let j = 0; j < children.length; j++) {
        const child = children[j]!;
        if (child.type !== 'link_open') continue;
        const target = linkTarget(String(child.attrGet('href') ?? ''), pagesPath, pages);
        if (target === undefined) {
          unlink(children, j);
          j--;
        } else child.attrSet('href', target);
      }
    }
  });
  // A table wider than the page scrolls inside its own region, as the portal's tables do.
  md.renderer.rules.table_open = () =>
    '<div class="table-scroll" role="region" aria-label="Table" tabindex="0"><table>\n';
  md.renderer.rules.table_close = () => '</table></div>\n';
  return (markdown) => {
    const tokens = md.parse(markdown, {});
    const first = tokens.findIndex((token) => token.type === 'heading_open');
    const title = first === -1 ? 'QR Manager' : (tokens[first + 1]?.content ?? 'QR Manager');
    return { title, html: md.renderer.render(tokens, md.options, {}) };
  };
}
