// A name a person gives a thing (a code, a batch item, a design, a signing key): text without control characters.
import { z } from 'zod';

/** C0 and C1 controls and DEL (NUL, line feed, tab, escape…): they break log lines, CSV cells and what a page shows. */
const CONTROL_CHARACTER = /\p{Cc}/u;

export function label(max: number, min?: number) {
  const text = min === undefined ? z.string().max(max) : z.string().min(min).max(max);
  return text.refine(
    (value) => !CONTROL_CHARACTER.test(value),
    'must not contain control characters (NUL, line feed, tab…)',
  );
}
