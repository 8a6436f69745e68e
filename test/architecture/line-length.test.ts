// No line of src/ or workers/ over 120 characters: TypeScript, Lua, every Eta template, the stylesheets and browser
// scripts, HTML and SQL files, and SQL and help text inside template literals. Exempt: generated data (*.data.ts),
// and a line that is a regular expression literal alone (split, no tool could read it as one pattern).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SRC, WORKERS } from './source-imports.js';

const MAX = 120;
const CHECKED = /\.(ts|lua|eta|css|js|mjs|html|sql)$/;
const GENERATED = /\.data\.ts$/;
const REGEX_LITERAL_ALONE = /^\s*\/.+\/[dgimsuvy]*[;,]?$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [relative(ROOT, path)];
  });
}

/** `file:line (length)` for each line over the limit, counted in characters (code points), not bytes. */
function longLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const length = [...line].length;
    return length > MAX && !REGEX_LITERAL_ALONE.test(line) ? [`${file}:${i + 1} (${length})`] : [];
  });
}

const files = [...filesUnder(SRC), ...filesUnder(WORKERS)].filter((f) => CHECKED.test(f) && !GENERATED.test(f));

describe('line length', () => {
  it('reads TypeScript, Lua, templates, stylesheets and scripts (else the check below passes vacuously)', () => {
    const samples = [
      'src/render/qr-internals.ts',
      'src/http/redirect/pages/page.eta',
      'src/http/portal/views/code.eta',
    ];
    const assets = ['portal/assets/portal.css', 'portal/assets/portal.js', 'openapi/reference-theme/api-reference.css'];
    expect(files).toEqual(expect.arrayContaining([...samples, ...assets.map((asset) => `src/http/${asset}`)]));
    expect(files.some((f) => f.endsWith('.lua'))).toBe(true);
    expect(longLines('probe.ts', `const sql = \`${'x'.repeat(MAX)}\`;`)).toEqual(['probe.ts:1 (135)']);
  });

  it(`keeps every line of src/ and workers/ within ${MAX} characters, outside generated data`, () => {
    expect(files.flatMap((file) => longLines(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });
});
