import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('sms', content);

describe('sms content from fields', () => {
  it('writes SMSTO:<number>:<message>, the number reduced to a leading + and digits', () => {
    expect(encode({ phone: '+1 (415) 555-0100', message: 'See you at 10:30' })).toBe(
      'SMSTO:+14155550100:See you at 10:30',
    );
  });

  it('writes SMSTO:<number> with no trailing colon when there is no message', () => {
    expect(encode({ phone: '+1 (415) 555-0100' })).toBe('SMSTO:+14155550100');
  });

  it('keeps a short code without a + as it is', () => {
    expect(encode({ phone: '40404', message: 'STOP' })).toBe('SMSTO:40404:STOP');
  });

  it.each([
    [{ message: 'hi' }, 'content.phone', /required/],
    [{ phone: '555-CALL' }, 'content.phone', /phone number/],
    [{ phone: '1-2' }, 'content.phone', /3 to 15 digits/],
    [{ phone: '+1234567890123456' }, 'content.phone', /3 to 15 digits/],
    [{ phone: '40404', message: '' }, 'content.message', /empty/],
    [{ phone: '40404', body: 'x' }, 'content.body', /not a field/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});

describe('sms content from a string', () => {
  it('turns a phone number into SMSTO:<number>', () => {
    expect(encode('+55 (11) 98765-4321')).toBe('SMSTO:+5511987654321');
  });

  it.each(['SMSTO:+14155550100:Hello: world', 'smsto:40404', 'SMSTO:+1 415 555 0100:hi'])(
    'returns the ready string %s as given',
    (payload) => {
      expect(encode(payload)).toBe(payload);
    },
  );

  it.each([
    ['SMSTO:call-me:hi', /phone number/],
    ['SMSTO::hi', /phone number/],
    ['SmsTo:+14155550100', /phone number/],
    ['sms:+14155550100', /phone number/],
  ])('rejects %s on content', (content, detail) => {
    expect(() => encode(content)).toThrow(blames('content', detail));
  });
});
