// url content: an absolute http(s) URL, encoded exactly as given.
import { invalidContent } from '../errors.js';
import { boundedPayload } from './structured-content.js';
import type { ContentEncoder } from './types.js';

export const urlContent: ContentEncoder = {
  type: 'url',
  encode(content) {
    if (typeof content !== 'string')
      throw invalidContent('content', 'must be a string holding an absolute http(s) URL');
    if (boundedPayload(content).length === 0) throw invalidContent('content', 'must not be empty');
    if (content !== content.trim()) throw invalidContent('content', 'must not start or end with white space');
    let parsed: URL;
    try {
      parsed = new URL(content);
    } catch {
      throw invalidContent('content', 'must be an absolute URL such as https://example.com/path');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw invalidContent('content', `scheme must be http or https, not ${parsed.protocol.slice(0, -1)}`);
    }
    if (parsed.hostname === '') throw invalidContent('content', 'must name a host');
    // Encoded as given, never the normalised URL: the caller decides what the code holds.
    return content;
  },
};
