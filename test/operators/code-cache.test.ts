// The bundle's code cache (scripts/code-cache.mjs, what dist/bundle/api.js runs the API through): a run without a cache
// writes one, a run with it keeps it, and a rebuilt bundle or a cache V8 refuses still runs the bundle's current code.
import { execFile } from 'node:child_process';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CACHE_SUFFIX } from '../../scripts/code-cache.mjs';
import { useTempDir } from '../helpers/temp-dir.js';

const exec = promisify(execFile);
const LOADER = join(import.meta.dirname, '..', '..', 'scripts', 'code-cache.mjs');

/** Runs `file` through the code cache in a process of its own; its stdout. */
async function run(file: string): Promise<string> {
  const script = `import { runWithCodeCache } from ${JSON.stringify(LOADER)}; runWithCodeCache(process.argv[1]);`;
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script, file], { timeout: 30_000 });
  return stdout;
}

/** A CommonJS bundle that prints `word` through a function (compiled lazily, so the cache holds it) and its module. */
const bundle = (word: string) =>
  `function say(w) { return 'said ' + w; }\nconsole.log(say('${word}'), typeof require, module.filename === __filename);\n`;

describe('running a CommonJS bundle through the code cache', () => {
  const dir = useTempDir('qrm-code-cache-');

  it('writes a cache on the first run and uses it, unchanged, on the next', async () => {
    const file = join(dir.path, 'first.cjs');
    await writeFile(file, bundle('hello'));
    expect(await run(file)).toBe('said hello function true\n');
    const cache = await stat(file + CACHE_SUFFIX);
    expect(cache.size).toBeGreaterThan(100);
    expect(await run(file)).toBe('said hello function true\n');
    // Accepted: not written again.
    expect((await stat(file + CACHE_SUFFIX)).mtimeMs).toBe(cache.mtimeMs);
  });

  it('runs a rebuilt bundle of the same length as its new code, not the cached one', async () => {
    const file = join(dir.path, 'rebuilt.cjs');
    await writeFile(file, bundle('aaaaa'));
    expect(await run(file)).toBe('said aaaaa function true\n');
    await writeFile(file, bundle('bbbbb'));
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    expect(await run(file)).toBe('said bbbbb function true\n');
    expect(await run(file)).toBe('said bbbbb function true\n');
  });

  it('runs from source when V8 refuses the cache, and writes a good one', async () => {
    const file = join(dir.path, 'refused.cjs');
    await writeFile(file, bundle('again'));
    await run(file);
    const stored = await readFile(file + CACHE_SUFFIX);
    const keyEnd = stored.indexOf('\n') + 1;
    // The key still matches this bundle; the V8 data after it is garbage.
    const garbage = Buffer.concat([stored.subarray(0, keyEnd), Buffer.alloc(stored.length, 7)]);
    await writeFile(file + CACHE_SUFFIX, garbage);
    expect(await run(file)).toBe('said again function true\n');
    expect(await readFile(file + CACHE_SUFFIX)).not.toEqual(garbage);
    const rewritten = await stat(file + CACHE_SUFFIX);
    expect(await run(file)).toBe('said again function true\n');
    expect((await stat(file + CACHE_SUFFIX)).mtimeMs).toBe(rewritten.mtimeMs);
  });

  it('runs a bundle with characters beyond ASCII as written, from source and from its cache', async () => {
    const file = join(dir.path, 'accents.cjs');
    await writeFile(file, bundle('héllo — ≤ 😀'));
    expect(await run(file)).toBe('said héllo — ≤ 😀 function true\n');
    expect(await run(file)).toBe('said héllo — ≤ 😀 function true\n');
  });
});
