// Archive file names of batch items: safe for every unzip tool, unique, and the index when there is no name.
import { describe, expect, it } from 'vitest';
import { assignFileNames, sanitiseStem } from '../../src/domain/batches/file-names.js';

describe('batch archive file names', () => {
  it('keeps letters, digits, dot, dash and underscore; nothing can climb out of the archive', () => {
    expect(sanitiseStem('Ticket #12 / Row B')).toBe('Ticket-12-Row-B');
    expect(sanitiseStem('../../etc/passwd')).toBe('etc-passwd');
    expect(sanitiseStem('...')).toBe('');
    expect(sanitiseStem('é'.repeat(300))).toBe('');
    expect(sanitiseStem('a'.repeat(300))).toHaveLength(100);
  });

  it(
    'names each file by its name or index and makes repeats unique, case-insensitively, never colliding with the ' +
      'manifest',
    () => {
      const names = assignFileNames([
        { name: 'label', format: 'png' },
        { name: 'LABEL', format: 'png' },
        { format: 'webp' },
        { name: 'label-1', format: 'png' },
        { name: '???', format: 'svg' },
        { name: 'manifest', format: 'png' },
      ]);
      expect(names).toEqual(['label.png', 'LABEL-1.png', '2.webp', 'label-1-3.png', '4.svg', 'manifest.png']);
      expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    },
  );
});
