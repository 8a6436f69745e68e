import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('whatsapp', content);

describe('whatsapp content from fields', () => {
  it('strips the phone to digits and percent-encodes the message as UTF-8, as in the issue vector', () => {
    expect(encode({ phone: '+55 (11) 98765-4321', message: 'Olá! Quero 2 pizzas & 1 refri' })).toBe(
      'https://wa.me/5511987654321?text=Ol%C3%A1!%20Quero%202%20pizzas%20%26%201%20refri',
    );
  });

  it('leaves ?text= out when there is no message', () => {
    expect(encode({ phone: '+1 415.555.0100' })).toBe('https://wa.me/14155550100');
  });

  it('encodes the characters that would break the query: # & = ? + and line breaks', () => {
    expect(encode({ phone: '14155550100', message: 'a#b&c=d?e+f\ng' })).toBe(
      'https://wa.me/14155550100?text=a%23b%26c%3Dd%3Fe%2Bf%0Ag',
    );
  });

  it.each([
    [{ message: 'hi' }, 'content.phone', /required/],
    [{ phone: 'call me' }, 'content.phone', /phone number/],
    [{ phone: '1234567' }, 'content.phone', /8 to 15 digits/],
    [{ phone: '+1234567890123456' }, 'content.phone', /8 to 15 digits/],
    [{ phone: '5511987654321', message: '' }, 'content.message', /empty/],
    [{ phone: '5511987654321', message: 'bad \uDC00' }, 'content.message', /lone surrogate/],
    [{ phone: 5511987654321 }, 'content.phone', /must be a string/],
    [{ phone: '5511987654321', text: 'hi' }, 'content.text', /not a field/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});

describe('whatsapp content from a string', () => {
  it('turns a phone number written with any punctuation into a wa.me link', () => {
    expect(encode('+55 (11) 98765-4321')).toBe('https://wa.me/5511987654321');
  });

  it.each([
    'https://wa.me/5511987654321',
    'https://wa.me/5511987654321?text=Ol%C3%A1!%20tudo%20bem',
    'https://wa.me/5511987654321?text=',
  ])('returns the link %s as given', (link) => {
    expect(encode(link)).toBe(link);
  });

  it.each([
    ['http://wa.me/5511987654321', /phone number/],
    ['https://wa.me/+5511987654321', /8 to 15 digits/],
    ['https://wa.me/1234567', /8 to 15 digits/],
    ['https://wa.me/5511987654321?text=hi&app=web', /one text= parameter/],
    ['https://wa.me/5511987654321?text=a b', /one text= parameter/],
    ['https://wa.me/5511987654321?text=%E0%A4%A', /percent-encoded/],
    ['https://wa.me/5511987654321#top', /#fragment/],
    ['98765', /8 to 15 digits/],
  ])('rejects %s on content', (content, detail) => {
    expect(() => encode(content)).toThrow(blames('content', detail));
  });
});
