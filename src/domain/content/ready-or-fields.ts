// Builds a content encoder that reads a string through the type's ready-string check and a plain object through its zod schema.
import type { z } from 'zod';
import { invalidContent } from '../errors.js';
import { readFields } from './fields.js';
import type { ContentEncoder, QrType } from './types.js';

interface ReadyOrFields<S extends z.ZodType> {
  type: QrType;
  schema: S;
  /** Validates a ready payload and returns what the code holds. */
  fromString: (ready: string) => string;
  /** Builds the payload from the schema-checked fields. */
  fromFields: (fields: z.infer<S>) => string;
  /** The accepted forms, for the message when content is neither a string nor an object. */
  forms: string;
  requiredErrorCorrection?: ContentEncoder['requiredErrorCorrection'];
}

export function readyOrFieldsEncoder<S extends z.ZodType>(spec: ReadyOrFields<S>): ContentEncoder {
  return {
    type: spec.type,
    objectSchema: spec.schema,
    ...(spec.requiredErrorCorrection ? { requiredErrorCorrection: spec.requiredErrorCorrection } : {}),
    encode(content) {
      if (typeof content === 'string') return spec.fromString(content);
      if (typeof content !== 'object' || content === null || Array.isArray(content)) throw invalidContent('content', `must be ${spec.forms}`);
      return spec.fromFields(readFields(spec.schema, spec.type, content));
    },
  };
}
