// text content: any non-empty UTF-8 text, encoded as is.
import { invalidContent } from '../errors.js';
import { boundedPayload } from './structured-content.js';
import type { ContentEncoder } from './types.js';

export const textContent: ContentEncoder = {
  type: 'text',
  encode(content) {
    if (typeof content !== 'string') throw invalidContent('content', 'must be a string');
    if (boundedPayload(content).length === 0) throw invalidContent('content', 'must not be empty');
    if (/[\uD800-\uDFFF]/u.test(content.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/gu, ''))) {
      throw invalidContent('content', 'must be valid Unicode (lone surrogate found)');
    }
    return content;
  },
};
