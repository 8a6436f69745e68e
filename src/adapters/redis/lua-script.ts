// The Redis adapters' Lua, read from the package's src/adapters/redis/lua/*.lua (the build does not copy them to dist/,
// so built code reads src/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../../package-root.js';

/** A script as ioredis's defineCommand takes it; numberOfKeys absent: the caller passes the count first. */
export interface LuaScript {
  name: string;
  numberOfKeys?: number;
  lua: string;
}

/** The text of `lua/<file>.lua`, read when called: each adapter module reads its scripts once, at load. */
export function readLua(file: string): string {
  return readFileSync(join(packagePath('src/adapters/redis/lua'), `${file}.lua`), 'utf8');
}
