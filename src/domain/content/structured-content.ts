// The encoder skeleton of a type whose content is either a ready payload string or an object of named fields.
import type { z } from 'zod';
import { invalidContent } from '../errors.js';
import { readFields } from './fields.js';
import { MAX_PAYLOAD_CHARS } from './limits.js';
import type { ContentEncoder, QrType } from './types.js';

export interface StructuredContent<S extends z.ZodObject> {
  /** What a string may be, completing "must be … or an object {…}": `a ready WIFI: string`. */
  ready: string;
  /**
   * Checks a string (already within MAX_PAYLOAD_CHARS) and returns the payload, usually the string as given;
   * `undefined` when the string is not in the type's ready form at all, refused as "must be <ready> or an object {…}".
   */
  fromString(content: string): string | undefined;
  /** Builds the payload from fields that passed the schema; rules between fields are checked here. */
  fromFields(fields: z.infer<S>): string;
}

/**
 * Usage, for a new type:
 *   export const fooContent = structuredContent('foo', fooFieldsSchema,
 *     { ready: 'a ready FOO: string', fromString: checkReadyFoo, fromFields: buildFoo });
 * `fields` is the object form: a strict zod object whose every string has a `.max()` (the OpenAPI document shows
 * them); the refusal of other content lists its fields. Strings are bounded before `fromString` reads them and objects
 * go through `readFields`, so every refusal is a 400 invalid_content naming `content` or `content.<field>`.
 */
export function structuredContent<S extends z.ZodObject>(
  type: QrType,
  fields: S,
  spec: StructuredContent<S>,
): ContentEncoder {
  const expected = `must be ${spec.ready} or an object ${objectForm(fields)}`;
  return {
    type,
    objectSchema: fields,
    encode(content) {
      if (typeof content === 'string') {
        const payload = spec.fromString(boundedPayload(content));
        if (payload === undefined) throw invalidContent('content', expected);
        return payload;
      }
      if (typeof content !== 'object' || content === null || Array.isArray(content))
        throw invalidContent('content', expected);
      return spec.fromFields(readFields(fields, type, content));
    },
  };
}

/**
 * A `fromString` that encodes a ready string exactly as given once `check` accepts it (`check` throws otherwise): the
 * caller decides what the code holds, a checksum may cover every character, and a rewrite would change a payload the
 * caller has already sized.
 */
export function asGiven(check: (content: string) => unknown): (content: string) => string {
  return (content) => {
    check(content);
    return content;
  };
}

/**
 * A `fromString` for a type that also takes a bare value: a string that `readyForm` matches (a pattern, or a prefix)
 * goes through `asGiven(check)`; any other is a bare value (a phone number, an address) that `fromBare` checks and
 * builds the payload from.
 */
export function readyOrBare(
  readyForm: RegExp | string,
  check: (content: string) => unknown,
  fromBare: (bare: string) => string,
): (content: string) => string {
  const ready = asGiven(check);
  const isReady =
    typeof readyForm === 'string'
      ? (content: string) => content.startsWith(readyForm)
      : (content: string) => readyForm.test(content);
  return (content) => (isReady(content) ? ready(content) : fromBare(content));
}

/** A ready string no QR code could hold is refused before any rule reads it. */
export function boundedPayload(content: string): string {
  if (content.length > MAX_PAYLOAD_CHARS)
    throw invalidContent('content', `must be at most ${MAX_PAYLOAD_CHARS} characters`);
  return content;
}

/** `{ssid, password?, encryption, hidden?}`: the fields in schema order, `?` marking those that may be left out. */
function objectForm(fields: z.ZodObject): string {
  const names = Object.entries(fields.shape).map(([name, field]) => (field.isOptional() ? `${name}?` : name));
  return `{${names.join(', ')}}`;
}
