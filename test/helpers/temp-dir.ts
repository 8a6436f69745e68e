// A temporary directory for a suite: made before its first test, removed with everything in it after its last.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** Registers the hooks where it is called (file or describe); `path` is set once the beforeAll has run. */
export function useTempDir(prefix: string): { path: string } {
  const dir = { path: '' };
  beforeAll(async () => {
    dir.path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir.path) await rm(dir.path, { recursive: true, force: true });
  });
  return dir;
}
