// tel content (RFC 3966): the RFC's example, spaces as visual separators, refusals.
import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('tel', content);

describe('tel content (RFC 3966)', () => {
  it("reproduces RFC 3966's example and writes spaces as visual separators", () => {
    expect(encode('+1-201-555-0123')).toBe('tel:+1-201-555-0123');
    expect(encode('tel:+1-201-555-0123')).toBe('tel:+1-201-555-0123');
    expect(encode('+44 20 7946 0958')).toBe('tel:+44-20-7946-0958');
  });

  it.each(['0201 555 0123', '+1 555 CALL', '+12', '+1234567890123456', 'tel:+1 555;ext=1'])('rejects %j', (content) => {
    expect(() => encode(content)).toThrow(blames('content', /./));
  });
});
