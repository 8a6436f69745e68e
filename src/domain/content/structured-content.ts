// The encoder skeleton of a type whose content is either a ready payload string or an object of named fields.
import type { z } from 'zod';
import { invalidContent } from '../errors.js';
import { readFields } from './fields.js';
import { MAX_PAYLOAD_CHARS } from './limits.js';
import type { ContentEncoder, QrType } from './types.js';

export interface StructuredContent<S extends z.ZodType> {
  type: QrType;
  /** The object form: a strict zod object whose every string has a `.max()` (the OpenAPI document shows them). */
  fields: S;
  /** What content may be, completing "must be …" when it is neither: `a ready WIFI: string or an object {ssid, …}`. */
  expected: string;
  /** Checks a ready string (already within MAX_PAYLOAD_CHARS) and returns the payload, usually the string as given. */
  fromString(content: string): string;
  /** Builds the payload from fields that passed the schema; rules between fields are checked here. */
  fromFields(fields: z.infer<S>): string;
}

/**
 * Usage, for a new type:
 *   export const fooContent = structuredContent({ type: 'foo', fields: fooFieldsSchema,
 *     expected: 'a ready FOO: string or an object {bar, baz?}', fromString: checkReadyFoo, fromFields: buildFoo });
 * Strings are bounded before `fromString` reads them and objects go through `readFields`, so every
 * refusal is a 400 invalid_content naming `content` or `content.<field>`.
 */
export function structuredContent<S extends z.ZodType>(spec: StructuredContent<S>): ContentEncoder {
  return {
    type: spec.type,
    objectSchema: spec.fields,
    encode(content) {
      if (typeof content === 'string') return spec.fromString(boundedPayload(content));
      if (typeof content !== 'object' || content === null || Array.isArray(content))
        throw invalidContent('content', `must be ${spec.expected}`);
      return spec.fromFields(readFields(spec.fields, spec.type, content));
    },
  };
}

/** A ready string no QR code could hold is refused before any rule reads it. */
export function boundedPayload(content: string): string {
  if (content.length > MAX_PAYLOAD_CHARS)
    throw invalidContent('content', `must be at most ${MAX_PAYLOAD_CHARS} characters`);
  return content;
}
