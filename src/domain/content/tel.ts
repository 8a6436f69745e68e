// tel content: a global phone number as an RFC 3966 tel: URI, visual separators - . ( ) kept, spaces written as -.
import { invalidContent } from '../errors.js';
import { boundedPayload } from './structured-content.js';
import type { ContentEncoder } from './types.js';

const GLOBAL_NUMBER = /^\+[\d\s().-]{1,40}$/;
const MIN_DIGITS = 3;
const MAX_DIGITS = 15;

export const telContent: ContentEncoder = {
  type: 'tel',
  encode(content) {
    if (typeof content !== 'string') throw invalidContent('content', 'must be a phone number string');
    const ready = boundedPayload(content);
    const number = ready.startsWith('tel:') ? ready.slice(4) : ready.trim();
    if (!GLOBAL_NUMBER.test(number)) {
      throw invalidContent(
        'content',
        'must be a global number: + then digits, with optional spaces - . ( ) as separators',
      );
    }
    const digits = number.replace(/\D/g, '').length;
    if (digits < MIN_DIGITS || digits > MAX_DIGITS)
      throw invalidContent('content', `must have ${MIN_DIGITS} to ${MAX_DIGITS} digits; has ${digits}`);
    // RFC 3966 visual-separator is - . ( ); a URI holds no space, so runs of spaces become one -.
    return `tel:${number.replace(/\s+/g, '-')}`;
  },
};
