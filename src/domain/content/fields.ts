// Reads the object form of content through its zod schema, turning the first issue into invalid_content naming the
// field.
import type { z } from 'zod';
import { invalidContent } from '../errors.js';

export function readFields<S extends z.ZodType>(schema: S, type: string, content: object): z.infer<S> {
  const result = schema.safeParse(content);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys')
    throw invalidContent(`content.${issue.keys[0]}`, `is not a field of ${type} content`);
  const name = String(issue.path[0]);
  if ((content as Record<string, unknown>)[name] === undefined) throw invalidContent(`content.${name}`, 'is required');
  throw invalidContent(
    `content.${name}`,
    issue.code === 'invalid_type' ? `must be a ${issue.expected}` : issue.message,
  );
}
