// Shared matcher for the content tests: the 400 invalid_content that names a field.
import { expect } from 'vitest';

/** The 400 invalid_content that names `field` (and, when given, says `detail`). */
export function blames(field: string, detail?: RegExp) {
  return expect.objectContaining({
    code: 'invalid_content',
    fields: [{ field, detail: detail ? expect.stringMatching(detail) : expect.any(String) }],
  });
}
