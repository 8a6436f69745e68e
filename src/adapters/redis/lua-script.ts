// The Redis adapters' Lua, read from src/adapters/redis/lua/*.lua (tsc does not copy them to dist/, so built code reads
// src/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A script as ioredis's defineCommand takes it; numberOfKeys absent: the caller passes the count first. */
export interface LuaScript {
  name: string;
  numberOfKeys?: number;
  lua: string;
}

/**
 * Under tsx (tests, dev) this module is src/adapters/redis/lua-script.ts; built, dist/src/adapters/redis/lua-script.js.
 */
function luaDir(): URL {
  const fromSource = fileURLToPath(import.meta.url).endsWith('.ts');
  return new URL(fromSource ? './lua/' : '../../../../src/adapters/redis/lua/', import.meta.url);
}

/** The text of `lua/<file>.lua`, read when called: each adapter module reads its scripts once, at load. */
export function readLua(file: string): string {
  return readFileSync(new URL(`${file}.lua`, luaDir()), 'utf8');
}
