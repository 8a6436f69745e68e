// `qr`'s private internals (its `_`-prefixed exports, `_tests`, files below the package root) reach our code through
// src/render/qr-internals.ts alone, where test/unit/qr-internals.test.ts pins them.
import { describe, expect, it } from 'vitest';
import { SOURCE_IMPORTS, type Import } from './source-imports.js';

const DOOR = 'src/render/qr-internals.ts';

/** A namespace import or a deep path reaches the internals as surely as a named `_` binding does. */
const reachesInternals = (imp: Import) =>
  imp.target === 'qr' && (imp.specifier !== 'qr' || imp.names.some((name) => name === '*' || name.startsWith('_')));

describe('qr internals', () => {
  it('are imported by the one module that wraps them (the check below would pass vacuously otherwise)', () => {
    expect(SOURCE_IMPORTS.filter(reachesInternals).map((imp) => imp.file)).toContain(DOOR);
  });

  it('are imported by no other file of src/ or workers/', () => {
    const others = SOURCE_IMPORTS.filter((imp) => reachesInternals(imp) && imp.file !== DOOR);
    expect(others.map((imp) => `${imp.file} imports ${imp.names.join(', ')} from '${imp.specifier}'`)).toEqual([]);
  });
});
