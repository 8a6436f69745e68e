// The playground's form per structured content type, derived from the same zod schemas the API validates content with.
import { z } from 'zod';
import { contentEncoderFor, QR_TYPES, type QrType } from '../../domain/content/index.js';

export interface ContentField {
  /** The object member (`ssid`), and the form field that carries it (`wifi.ssid`). */
  name: string;
  formName: string;
  label: string;
  kind: 'text' | 'number' | 'select' | 'checkbox' | 'textarea';
  required: boolean;
  maxLength?: number | undefined;
  options?: readonly string[] | undefined;
  min?: number | undefined;
  max?: number | undefined;
  hint?: string | undefined;
}

interface JsonProperty {
  type?: string;
  enum?: string[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  description?: string;
}

/** Longer strings than this get a text box rather than a line. */
const TEXTAREA_FROM = 300;

/** `firstName` → `First name`. */
function labelOf(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function fieldsOf(type: QrType, schema: z.ZodType): ContentField[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonProperty>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const kind: ContentField['kind'] = property.enum
      ? 'select'
      : property.type === 'boolean'
        ? 'checkbox'
        : property.type === 'number' || property.type === 'integer'
          ? 'number'
          : (property.maxLength ?? 0) >= TEXTAREA_FROM && /message|body|note|description|address/i.test(name)
            ? 'textarea'
            : 'text';
    return {
      name,
      formName: `${type}.${name}`,
      label: labelOf(name),
      kind,
      required: json.required?.includes(name) ?? false,
      maxLength: property.maxLength,
      options: property.enum,
      min: property.minimum,
      max: property.maximum,
      hint: property.description,
    };
  });
}

/** Every type that takes named fields, with its fields in the schema's order. */
export const CONTENT_FORMS: ReadonlyMap<QrType, readonly ContentField[]> = new Map(
  QR_TYPES.flatMap((type) => {
    const schema = contentEncoderFor(type).objectSchema;
    return schema ? [[type, fieldsOf(type, schema)] as const] : [];
  }),
);

/** The form's raw structured fields (strings, bounded): one schema entry per field, so none is accepted and ignored. */
export const CONTENT_FORM_FIELDS: Record<string, z.ZodOptional<z.ZodString>> = Object.fromEntries(
  [...CONTENT_FORMS.values()].flat().map((field) => [
    field.formName,
    z
      .string()
      .max(Math.min(field.maxLength ?? 64, 8192))
      .optional(),
  ]),
);

/**
 * The content object the chosen type's fields make, or undefined when none of them was filled in (the ready-payload
 * text box is used then). Values keep the schema's types (numbers, booleans); the encoder checks them as the API does.
 */
export function contentFromForm(
  type: QrType,
  form: Record<string, string | undefined>,
): Record<string, unknown> | undefined {
  const fields = CONTENT_FORMS.get(type);
  if (!fields) return undefined;
  const entries = fields.flatMap((field): [string, unknown][] => {
    const value = form[field.formName];
    if (value === undefined || value === '') return [];
    if (field.kind === 'checkbox') return value === 'on' ? [[field.name, true]] : [[field.name, value]];
    if (field.kind === 'number') return [[field.name, Number.isFinite(Number(value)) ? Number(value) : value]];
    return [[field.name, value]];
  });
  // A select always posts its first option: only a field filled in besides the selects makes this the fields form.
  const filled = entries.some(([name]) => fields.find((f) => f.name === name)?.kind !== 'select');
  return filled ? Object.fromEntries(entries) : undefined;
}
