// upi content (upi://pay): percent-encoded values, the amount with two decimals, refusals naming the field.
import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('upi', content);

describe('upi content', () => {
  it('writes upi://pay with percent-encoded values, the amount with two decimals and cu=INR', () => {
    expect(encode({ vpa: 'shop@okaxis', name: 'Corner Shop & Co', amount: 120, note: 'Order #42 – tea' })).toBe(
      'upi://pay?pa=shop@okaxis&pn=Corner%20Shop%20%26%20Co&am=120.00&cu=INR&tn=Order%20%2342%20%E2%80%93%20tea',
    );
    expect(encode({ vpa: 'a.b-c@upi', name: 'A' })).toBe('upi://pay?pa=a.b-c@upi&pn=A&cu=INR');
  });

  it.each([
    [{ vpa: 'no-at-sign', name: 'A' }, 'content.vpa', /UPI address/],
    [{ vpa: 'ab@upi' }, 'content.name', /required/],
    [{ vpa: 'ab@upi', name: 'A', amount: 1.005 }, 'content.amount', /two decimals/],
    ['https://example.com', 'content', /upi:\/\/pay/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});
