// The docs cannot fall behind the service: docs/configuration.md is what the config schema generates, and every API
// operation is on a page.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationMarkdown } from '../../src/config-reference.js';
import { permissionTableMarkdown } from '../../src/domain/roles.js';
import { useTestApp } from '../helpers/app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = join(ROOT, 'docs');

/** README.md and every page in docs/, whoever wrote it (a page added later is read too). */
function docsText(): string {
  const pages = readdirSync(DOCS).filter((name) => name.endsWith('.md') && name !== 'BENCHMARKS.md');
  return [
    readFileSync(join(ROOT, 'README.md'), 'utf8'),
    ...pages.map((name) => readFileSync(join(DOCS, name), 'utf8')),
  ].join('\n');
}

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/** A line naming the operation: its method, and its path with any parameter spelling (`{id}`, `{slug}`, `:id`). */
function documented(lines: string[], method: string, path: string): boolean {
  const pattern = new RegExp(
    `${path
      .split(/\{[^}]+\}/)
      .map(escape)
      .join('(?:\\{[^}]+\\}|:[A-Za-z]+)')}(?![A-Za-z0-9/{])`,
  );
  return lines.some((line) => pattern.test(line) && new RegExp(`\\b${method.toUpperCase()}\\b`).test(line));
}

describe('the docs', () => {
  const t = useTestApp();

  it(
    'docs/configuration.md is what `npm run docs:config` writes from the config schema (run it after changing a ' +
      'variable)',
    () => {
      expect(readFileSync(join(DOCS, 'configuration.md'), 'utf8')).toBe(configurationMarkdown());
    },
  );

  it('docs/teams.md shows the roles permission table exactly as the domain holds it', () => {
    const page = readFileSync(join(DOCS, 'teams.md'), 'utf8');
    const shown = /<!-- permission-table:start -->\n([\s\S]*?)\n<!-- permission-table:end -->/.exec(page)?.[1];
    expect(shown).toBe(permissionTableMarkdown());
  });

  it('name every operation of /openapi.json (method and path on one line) on some page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = (res.json() as { paths: Record<string, Record<string, unknown>> }).paths;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => [method, path] as const),
    );
    expect(operations.length).toBeGreaterThan(10);
    const lines = docsText().split('\n');
    const missing = operations
      .filter(([method, path]) => !documented(lines, method, path))
      .map(([method, path]) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
  });

  it('finds an operation only where the page names it (the check above is not vacuous)', () => {
    expect(documented(['`GET /api/v1/QRManager/codes/{id}` reads one'], 'get', '/api/v1/QRManager/codes/{id}')).toBe(
      true,
    );
    expect(documented(['`GET /api/v1/QRManager/codes/{id}/stats`'], 'get', '/api/v1/QRManager/codes/{id}')).toBe(false);
    expect(documented(['`POST /api/v1/QRManager/codes/{id}`'], 'get', '/api/v1/QRManager/codes/{id}')).toBe(false);
  });
});
