// Schemas of the generation endpoint: the request body as validated, documented in OpenAPI from the same source.
import { z } from 'zod';
import {
  FINDER_SHAPES,
  FRAME_TEXT,
  FRAME_TEXT_MAX,
  LOGO_SCALE_LIMITS,
  MODULE_SHAPES,
} from '../../../domain/branding.js';
import { contentEncoderFor } from '../../../domain/content/index.js';
import { MAX_PAYLOAD_CHARS } from '../../../domain/content/limits.js';
import { QR_TYPES } from '../../../domain/content/types.js';
import { OUTPUT_FORMATS } from '../../../domain/plan-catalogue.js';
import { CMYK_COLOUR, DEFAULT_MIN_MODULE_MM, DPI_LIMITS, SIZE_MM_LIMITS } from '../../../domain/print.js';
import {
  ERROR_CORRECTION_LEVELS,
  HEX_COLOUR,
  MARGIN_LIMITS,
  MIN_MODULE_PIXELS,
  SIZE_LIMITS,
} from '../../../domain/render-options.js';

/** Each type's fields as JSON Schema, with their maximum lengths, from the encoders' zod schemas. */
function namedFieldSchemas(): object[] {
  return QR_TYPES.flatMap((type) => {
    const schema = contentEncoderFor(type).objectSchema;
    if (!schema) return [];
    const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    return [{ title: `${type} fields`, ...json }];
  });
}

/**
 * The object form is validated by the type's own encoder (which names the failing field); the
 * document shows each type's fields, with their maximum lengths, from the same zod schemas: built when the document is
 * (the first /openapi.json or /docs), not at start-up.
 */
const namedFields = z.record(z.string(), z.unknown()).meta({
  get anyOf() {
    const schemas = namedFieldSchemas();
    Object.defineProperty(this, 'anyOf', { value: schemas, enumerable: true });
    return schemas;
  },
});

const colour = z.string().regex(HEX_COLOUR, 'must be #RRGGBB or #RRGGBBAA');
/** darkColor and lightColor: a hex colour, or for pdf and eps a cmyk(c,m,y,k) ink in percent. */
export const inkColour = z
  .string()
  .max(64)
  .refine(
    (value) => HEX_COLOUR.test(value) || CMYK_COLOUR.test(value),
    'must be #RRGGBB, #RRGGBBAA or (pdf and eps) cmyk(c,m,y,k) in percent',
  );

/** The image side in pixels, for a JSON body (`z.number()`) or a query string (`z.coerce.number()`). */
export const pixelSide = <N extends z.ZodNumber | z.ZodCoercedNumber>(number: N) =>
  number.int().min(SIZE_LIMITS.min).max(SIZE_LIMITS.max).optional();

/** The quiet zone in modules, for a JSON body or a query string, as pixelSide. */
export const quietZone = <N extends z.ZodNumber | z.ZodCoercedNumber>(number: N) =>
  number
    .int()
    .min(MARGIN_LIMITS.min)
    .max(MARGIN_LIMITS.max)
    .optional()
    .describe(`Quiet zone in modules (default ${MARGIN_LIMITS.default}).`);

/** The print fields, shared by every request that draws a code. */
export const PrintFields = {
  sizeMm: z
    .number()
    .min(SIZE_MM_LIMITS.min)
    .max(SIZE_MM_LIMITS.max)
    .optional()
    .describe(
      `Physical side in millimetres (${SIZE_MM_LIMITS.min}–${SIZE_MM_LIMITS.max}): the page of a PDF, the ` +
        `bounding box of an EPS, width and height in mm of an SVG; for PNG and WebP the pixels come from it and ` +
        `\`dpi\`. Not with \`size\`. A side whose modules would print narrower than the service's minimum ` +
        `(default ${DEFAULT_MIN_MODULE_MM} mm) is a 400 whose \`minimumSizeMm\` is the smallest that works. ` +
        `docs/print.md.`,
    ),
  dpi: z
    .number()
    .int()
    .min(DPI_LIMITS.min)
    .max(DPI_LIMITS.max)
    .optional()
    .describe(
      `PNG and WebP only: resolution written in the file (PNG pHYs, WebP EXIF), default ${DPI_LIMITS.default}` +
        ` with sizeMm; with sizeMm the image is sizeMm × dpi / 25.4 pixels (at most ${SIZE_LIMITS.max}), without ` +
        `it only the resolution is written.`,
    ),
};

/**
 * The branding fields, shared by every request that draws a code (generate, and later batch items and dynamic codes).
 */
export const BrandingFields = {
  moduleShape: z.enum(MODULE_SHAPES).optional().describe('Shape of each dark module (default square).'),
  finderShape: z
    .enum(FINDER_SHAPES)
    .optional()
    .describe(
      'Shape of the three corner finder patterns (default square); `circle` is a round eye whose ring is a ' +
        'squircle, the roundest shape every scanner we test reads.',
    ),
  finderColor: colour
    .optional()
    .describe('Colour of the finder patterns (default darkColor); held to the same contrast rule against lightColor.'),
  logo: z
    .strictObject({
      id: z.string().min(1).max(64).describe('Id of a logo uploaded with POST /api/v1/QRManager/logos.'),
      scale: z
        .number()
        .min(LOGO_SCALE_LIMITS.min)
        .max(LOGO_SCALE_LIMITS.max)
        .optional()
        .describe(`Logo side as a share of the code's side (default ${LOGO_SCALE_LIMITS.default}).`),
    })
    .optional()
    .describe(
      'A logo in the centre, on a cleared padded square. The error correction the covered area needs is chosen ' +
        'for you; ' +
        ('if you fix a lower errorCorrection the answer is 422 `unscannable_design` with the largest ' +
          '`maxLogoScale` that fits.'),
    ),
  frame: z
    .strictObject({
      text: z
        .string()
        .min(1)
        .max(FRAME_TEXT_MAX)
        .regex(FRAME_TEXT, 'printable Latin-1 characters only')
        .describe(
          `Caption below the code, drawn as outlines of a bundled font (at most ${FRAME_TEXT_MAX} characters).`,
        ),
      color: colour.optional().describe('Band colour (default darkColor); the caption is drawn in lightColor on it.'),
    })
    .optional()
    .describe('A band with a caption below the code; the image becomes taller than `size` by the band.'),
};

export const GenerateBody = z.strictObject({
  content: z
    .union([z.string().max(MAX_PAYLOAD_CHARS, `must be at most ${MAX_PAYLOAD_CHARS} characters`), namedFields])
    .describe(
      'What to encode: a string for every type (a ready payload, validated), or for wifi, vcard, pix, ' +
        'whatsapp, email, sms, epc, upi, geo, event and mecard an object of named fields. epc is always encoded ' +
        'at error correction M (EPC069-12), whatever errorCorrection says.',
    ),
  type: z.enum(QR_TYPES).describe('The kind of content.'),
  outputFormat: z
    .enum(OUTPUT_FORMATS)
    .describe(
      "Image format of the response; the key's plan must include it (the operation's description lists each " +
        "plan's formats).",
    ),
  size: pixelSide(z.number()).describe(
    `Image side in pixels (default ${SIZE_LIMITS.default}; for pdf and eps without sizeMm, the side in ` +
      `points). PNG and WebP draw each module with whole pixels, at least ${MIN_MODULE_PIXELS} per module; a ` +
      `size too small for that is a 400 whose minimumSize says the smallest that fits.`,
  ),
  margin: quietZone(z.number()),
  errorCorrection: z
    .enum(ERROR_CORRECTION_LEVELS)
    .optional()
    .describe(
      'Error correction level (default M; with a logo, the level the logo needs; always M for epc, as ' +
        'EPC069-12 prescribes).',
    ),
  darkColor: inkColour
    .optional()
    .describe(
      'Colour of dark modules (default #000000); `cmyk(c,m,y,k)` (percent) for pdf and eps, written as DeviceCMYK.',
    ),
  lightColor: inkColour
    .optional()
    .describe('Background colour (default #FFFFFF); `cmyk(c,m,y,k)` (percent) for pdf and eps, written as DeviceCMYK.'),
  eci: z
    .boolean()
    .optional()
    .describe(
      'Write all text beyond ASCII as UTF-8 behind the ECI designator (26), Japanese included (no Kanji mode). ' +
        'Off by default: the encoder then picks the smallest code that ZXing, zbar and jsQR all read exactly ' +
        '(Kanji mode for Japanese, UTF-8 with the ECI where readers would guess another charset; ' +
        'docs/charsets.md).',
    ),
  design: z
    .string()
    .max(64)
    .optional()
    .describe(
      'A saved design of your account (`des_…`, POST /api/v1/QRManager/designs): its fields apply wherever ' +
        'this request does not set them.',
    ),
  ...PrintFields,
  ...BrandingFields,
});

export type GenerateBody = z.infer<typeof GenerateBody>;
