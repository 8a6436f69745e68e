// The canonical string and signature of signed image URLs, against the worked example in docs/signed-urls.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalString, parseQuery, rfc3986, signCanonical, signedImagePath } from '../../src/domain/signed-url.js';
import { DOCS_EXAMPLE } from '../helpers/signed-urls.js';

const DOC = readFileSync(new URL('../../docs/signed-urls.md', import.meta.url), 'utf8');
const { key: KEY } = DOCS_EXAMPLE;
const PARAMS = { ...DOCS_EXAMPLE.params, exp: DOCS_EXAMPLE.exp };

describe('signed URL canonical string', () => {
  it('encodes as RFC 3986: the five characters encodeURIComponent leaves alone are encoded too', () => {
    expect(rfc3986("!'()*~-._ a/é")).toBe('%21%27%28%29%2A~-._%20a%2F%C3%A9');
  });

  it('gives the canonical string and signature of the worked example in the docs', () => {
    const path = `/i/${KEY.id}/png`;
    const canonical = canonicalString(
      path,
      Object.entries(PARAMS).map(([name, value]) => [name, String(value)]),
    );
    expect(DOC).toContain(`\n${canonical}\n`);
    const sig = signCanonical(KEY.secret, canonical);
    expect(DOC).toContain(`\`${sig}\``);
    expect(signedImagePath(KEY.id, KEY.secret, 'png', PARAMS)).toBe(`${canonical}&sig=${sig}`);
  });

  it('sorts by name then value, leaves sig out, and reads + as a space', () => {
    expect(
      canonicalString('/i/k/png', [
        ['b', '2'],
        ['a', 'z'],
        ['sig', 'x'],
        ['a', 'y'],
      ]),
    ).toBe('/i/k/png?a=y&a=z&b=2');
    expect(parseQuery('a=1+2&b=%2B&&c')).toEqual([
      ['a', '1 2'],
      ['b', '+'],
      ['c', ''],
    ]);
    expect(parseQuery('a=%zz')).toBeUndefined();
  });
});
