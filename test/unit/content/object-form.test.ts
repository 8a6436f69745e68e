// Content of the wrong kind is refused with the object form the type's schema accepts, so the message cannot drift.
import { describe, expect, it } from 'vitest';
import { contentEncoderFor, QR_TYPES } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const STRUCTURED = QR_TYPES.filter((type) => contentEncoderFor(type).objectSchema);
/** Types that take no bare value: a string outside their ready form is refused the same way. */
const READY_FORM_ONLY = new Set(['epc', 'upi', 'geo', 'event', 'mecard']);

describe('content of the wrong kind', () => {
  it.each(STRUCTURED)('%s: is refused naming every field of its object form, the optional ones with ?', (type) => {
    const encoder = contentEncoderFor(type);
    const shape = (encoder.objectSchema as unknown as { shape: Record<string, { isOptional(): boolean }> }).shape;
    const fields = Object.entries(shape).map(([name, field]) => (field.isOptional() ? `${name}?` : name));
    const objectForm = `an object {${fields.join(', ')}}`.replace(/[?{}]/g, '\\$&');
    for (const content of [42, ['x'], null, true, ...(READY_FORM_ONLY.has(type) ? ['not a payload'] : [])])
      expect(() => encoder.encode(content)).toThrow(blames('content', new RegExp(`${objectForm}$`)));
  });
});
