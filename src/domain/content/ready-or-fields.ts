// Dispatches a type's content: a string goes to its ready-string reader, a plain object through its zod schema to its builder.
import type { z } from 'zod';
import { invalidContent } from '../errors.js';
import { readFields } from './fields.js';

export function readyOrFields<S extends z.ZodType>(
  content: unknown,
  type: string,
  schema: S,
  fromString: (ready: string) => string,
  fromFields: (fields: z.infer<S>) => string,
  shape: string,
): string {
  if (typeof content === 'string') return fromString(content);
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    throw invalidContent('content', `must be ${shape}`);
  }
  return fromFields(readFields(schema, type, content));
}
