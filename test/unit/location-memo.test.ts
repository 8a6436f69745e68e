// The redirect's memory of Location headers: one per destination of a code version, bounded, never shared between
// versions.
import { describe, expect, it } from 'vitest';
import { NO_ROUTING } from '../../src/domain/code-routing.js';
import type { SlugTarget } from '../../src/domain/dynamic-code.js';
import { DESTINATIONS_PER_CODE, LocationMemo } from '../../src/http/redirect/location-memo.js';

const code = (target: string): SlugTarget => ({
  codeId: 'c1',
  accountId: 'a1',
  target,
  state: 'active',
  routing: NO_ROUTING,
});

describe('LocationMemo', () => {
  it('works a header out once per destination of one code version, and again for a changed version', () => {
    const memo = new LocationMemo();
    const worked: string[] = [];
    const header = (value: string) => () => (worked.push(value), value);
    const first = code('https://example.com/a');
    expect(memo.of(first, 'https://example.com/a', header('A1'))).toBe('A1');
    expect(memo.of(first, 'https://example.com/a', header('A2'))).toBe('A1');
    expect(memo.of(first, 'https://example.com/b', header('B1'))).toBe('B1');
    const changed = code('https://example.com/a');
    expect(memo.of(changed, 'https://example.com/a', header('A3'))).toBe('A3');
    expect(worked).toEqual(['A1', 'B1', 'A3']);
  });

  it('keeps at most DESTINATIONS_PER_CODE headers for a code, answering the others right all the same', () => {
    const memo = new LocationMemo();
    const one = code('https://example.com/');
    for (let i = 0; i < DESTINATIONS_PER_CODE * 3; i++) {
      const target = `https://example.com/${i}`;
      expect(memo.of(one, target, () => `${target}?utm_source=qr`)).toBe(`${target}?utm_source=qr`);
    }
    expect(memo.rememberedFor(one)).toBe(DESTINATIONS_PER_CODE);
    expect(memo.of(one, 'https://example.com/x', () => 'fresh')).toBe('fresh');
  });
});
