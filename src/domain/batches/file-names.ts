// Archive file names for batch items: the caller's name made safe for every unzip tool and unique, or the index.
import type { OutputFormat } from '../plan-catalogue.js';
import { trimTrailing } from '../trim-trailing.js';

const MAX_STEM = 100;
const UNSAFE = /[^A-Za-z0-9._-]+/g;

/** Letters, digits, dot, dash and underscore; no leading dots (hidden files, `..`); at most 100 characters. */
export function sanitiseStem(name: string): string {
  return trimTrailing(
    name
      .replace(UNSAFE, '-')
      .replace(/^[.-]+/, '')
      .slice(0, MAX_STEM),
    '.-',
  );
}

/** File names for every item, in index order: `name.ext`, or `index.ext`; a repeat gets `-index` appended. */
export function assignFileNames(items: ReadonlyArray<{ name?: string | undefined; format: OutputFormat }>): string[] {
  const taken = new Set<string>(['manifest.csv']);
  return items.map((item, index) => {
    const stem = item.name === undefined ? '' : sanitiseStem(item.name);
    let file = `${stem || String(index)}.${item.format}`;
    // `-index` is unique among generated names; the counter covers a caller who named an item like one.
    for (let n = 0; taken.has(file.toLowerCase()); n++)
      file = `${stem || 'item'}-${index}${n === 0 ? '' : `-${n}`}.${item.format}`;
    taken.add(file.toLowerCase());
    return file;
  });
}
