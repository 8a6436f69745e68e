// Percent-encodes one URI value, refusing a lone surrogate (no UTF-8 form) as invalid_content naming the field.
import { invalidContent } from '../errors.js';

export function encodeUriValue(value: string, field: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    // encodeURIComponent throws URIError on a lone surrogate, which has no UTF-8 form.
    throw invalidContent(field, 'must be valid Unicode (lone surrogate found)');
  }
}
