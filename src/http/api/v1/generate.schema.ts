// Schemas of the generation endpoint: the request body as validated, documented in OpenAPI from the same source.
import { z } from 'zod';
import { contentEncoderFor } from '../../../domain/content/index.js';
import { MAX_PAYLOAD_CHARS } from '../../../domain/content/limits.js';
import { QR_TYPES } from '../../../domain/content/types.js';
import { OUTPUT_FORMATS } from '../../../domain/plan-catalogue.js';
import { ERROR_CORRECTION_LEVELS, HEX_COLOUR, MARGIN_LIMITS, MIN_MODULE_PIXELS, SIZE_LIMITS } from '../../../domain/render-options.js';

/**
 * The object form is validated by the type's own encoder (which names the failing field); the
 * document shows each type's fields, with their maximum lengths, from the same zod schemas.
 */
const namedFields = z.record(z.string(), z.unknown()).meta({
  anyOf: QR_TYPES.flatMap((type) => {
    const schema = contentEncoderFor(type).objectSchema;
    if (!schema) return [];
    const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    return [{ title: `${type} fields`, ...json }];
  }),
});

const colour = z.string().regex(HEX_COLOUR, 'must be #RRGGBB or #RRGGBBAA');

export const GenerateBody = z.strictObject({
  content: z
    .union([z.string().max(MAX_PAYLOAD_CHARS, `must be at most ${MAX_PAYLOAD_CHARS} characters`), namedFields])
    .describe(
      'What to encode: a string for every type (a ready payload, validated), or for wifi, vcard, pix, whatsapp, email, sms, epc, upi, geo, event and mecard an object of named fields. epc is always encoded at error correction M (EPC069-12), whatever errorCorrection says.',
    ),
  type: z.enum(QR_TYPES).describe('The kind of content.'),
  outputFormat: z
    .enum(OUTPUT_FORMATS)
    .describe("Image format of the response; the key's plan must include it (the operation's description lists each plan's formats)."),
  size: z
    .number()
    .int()
    .min(SIZE_LIMITS.min)
    .max(SIZE_LIMITS.max)
    .optional()
    .describe(
      `Image side in pixels (default ${SIZE_LIMITS.default}). PNG and WebP draw each module with whole pixels, at least ${MIN_MODULE_PIXELS} per module; a size too small for that is a 400 whose minimumSize says the smallest that fits.`,
    ),
  margin: z.number().int().min(MARGIN_LIMITS.min).max(MARGIN_LIMITS.max).optional().describe(`Quiet zone in modules (default ${MARGIN_LIMITS.default}).`),
  errorCorrection: z.enum(ERROR_CORRECTION_LEVELS).optional().describe('Error correction level (default M; always M for epc, as EPC069-12 prescribes).'),
  darkColor: colour.optional().describe('Colour of dark modules (default #000000).'),
  lightColor: colour.optional().describe('Background colour (default #FFFFFF).'),
  eci: z
    .boolean()
    .optional()
    .describe(
      'Name the charset: open the code with the UTF-8 ECI designator (26) when the content is not plain ASCII, and put all text in UTF-8 byte mode. Off by default: the encoder then picks the smallest code, with Kanji mode for Japanese and ISO-8859-1 where readers guess it right; a few readers (zbar) misread UTF-8 without ECI.',
    ),
});

export type GenerateBody = z.infer<typeof GenerateBody>;
