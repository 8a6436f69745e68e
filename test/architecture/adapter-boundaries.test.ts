// No adapter reaches into another technology's adapters: what two share lives in src/domain or src/adapters/*.ts.
import { describe, expect, it } from 'vitest';
import { SOURCE_IMPORTS } from './source-imports.js';

/** The technology folder of an adapter file (`redis`, `sqlite`, …), or undefined for src/adapters' shared files. */
function technologyOf(path: string): string | undefined {
  const [, folder, rest] = /^src\/adapters\/([^/]+)\/(.+)$/.exec(path) ?? [];
  return rest === undefined ? undefined : folder;
}

/** Imports across technology folders that are a folder's public entry for others, each with its reason. */
const ALLOWED: Array<{ from: RegExp; target: string; why: string }> = [
  {
    from: /^src\/adapters\/queue\//,
    target: 'src/adapters/redis/connection.ts',
    why: 'BullMQ runs on Redis: its queues connect through the one place that makes Redis clients',
  },
  {
    from: /^src\/adapters\/sqlite\/sqlite-stores\.ts$/,
    target: 'src/adapters/files/batch-results.files.ts',
    why: "the embedded default's store bundle keeps batch results as files beside its database",
  },
];

const crossings = SOURCE_IMPORTS.filter((imp) => {
  if (!imp.file.startsWith('src/adapters/') || !imp.target.startsWith('src/adapters/')) return false;
  const target = technologyOf(imp.target);
  return target !== undefined && target !== technologyOf(imp.file);
});

describe('adapter boundaries', () => {
  it('sees the imports between adapter folders (the check below would pass vacuously otherwise)', () => {
    expect(crossings.map((imp) => `${imp.file} -> ${imp.target}`)).toContain(
      'src/adapters/queue/job-queue.bullmq.ts -> src/adapters/redis/connection.ts',
    );
  });

  it("no adapter imports another technology's adapter files, outside the named public entries", () => {
    const broken = crossings
      .filter((imp) => !ALLOWED.some((allowed) => allowed.from.test(imp.file) && allowed.target === imp.target))
      .map((imp) => `${imp.file} imports ${imp.target}`);
    expect(broken).toEqual([]);
  });
});
