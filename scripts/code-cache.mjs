// Runs a CommonJS bundle through V8's code cache: the compiled functions a previous run used are read back from a file
// beside the bundle instead of being parsed and compiled again (Node 20 has no compile cache of its own).
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The cache of `file`: the bundle's path with this suffix. */
export const CACHE_SUFFIX = '.v8cache';

/**
 * What a cache is valid for: V8 checks only the source's length, its own version and its flags, so a bundle rebuilt
 * to the same length would run the old code. The bundle's size and modification time, Node's version and the
 * architecture are written before the cache and must match.
 */
function cacheKey(file) {
  const { size, mtimeMs } = statSync(file);
  return `${size}:${mtimeMs}:${process.version}:${process.arch}\n`;
}

/** The V8 cache stored for this exact bundle, or undefined (missing, unreadable, or made for another bundle). */
function readCache(path, key) {
  let stored;
  try {
    stored = readFileSync(path);
  } catch {
    return undefined;
  }
  const keyLength = Buffer.byteLength(key);
  return stored.subarray(0, keyLength).toString('latin1') === key ? stored.subarray(keyLength) : undefined;
}

/** The file's text: an ASCII file (what scripts/bundle.mjs writes) as Latin-1, a plain copy; any other as UTF-8. */
function sourceOf(file) {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** Writes the cache whole or not at all (another process may read or write it at the same time). */
function writeCache(path, key, data) {
  const partial = `${path}.${process.pid}.partial`;
  try {
    writeFileSync(partial, Buffer.concat([Buffer.from(key, 'latin1'), data]));
    renameSync(partial, path);
  } catch {
    // A read-only install runs without the cache: the bundle compiles from source as it would without one.
    rmSync(partial, { force: true });
  }
}

/**
 * Runs the CommonJS `file` as Node's loader would (module, require, __filename, __dirname); the file must not call
 * `import()`, which such a script cannot (scripts/bundle.mjs turns it into require()). With a cache made for it, V8
 * takes the compiled code from the cache; without one, or when V8 rejects it (another V8 or other flags), it compiles
 * from source, and the process writes a cache on exit, when it holds every function the run compiled (also those
 * compiled after start-up, on first requests).
 */
export function runWithCodeCache(file) {
  const path = `${file}${CACHE_SUFFIX}`;
  const key = cacheKey(file);
  const cachedData = readCache(path, key);
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${sourceOf(file)}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once('exit', () => writeCache(path, key, script.createCachedData()));
  }
  const module = { exports: {}, filename: file };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
}
