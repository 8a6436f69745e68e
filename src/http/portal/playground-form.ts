// The playground's form: its fields as posted, as checked, and as the branding options and choices the page offers.
import { z } from 'zod';
import { FINDER_SHAPES, FRAME_TEXT, FRAME_TEXT_MAX, LOGO_SCALE_LIMITS, MODULE_SHAPES } from '../../domain/branding.js';
import { QR_TYPES } from '../../domain/content/types.js';
import { DESIGN_NAME_MAX } from '../../domain/design.js';
import { OUTPUT_FORMATS } from '../../domain/plan-catalogue.js';
import { isPrintFormat } from '../../domain/print.js';
import { HEX_COLOUR } from '../../domain/render-options.js';
import { CONTENT_FORM_FIELDS } from './content-form.js';

/** The playground shows the image in the page: the formats a browser draws in an <img> (PDF and EPS are for print). */
export const SCREEN_FORMATS = OUTPUT_FORMATS.filter((format) => !isPrintFormat(format)) as ['png', 'webp', 'svg'];

export const SIZES = ['256', '512', '1024'] as const;

/** Raw form fields: anything a browser can send is read, then checked below so the form can show what was wrong. */
export const PlaygroundForm = z.object({
  type: z.string().max(32).optional(),
  content: z.string().max(8192).optional(),
  ...CONTENT_FORM_FIELDS,
  darkColor: z.string().max(16).optional(),
  lightColor: z.string().max(16).optional(),
  outputFormat: z.string().max(16).optional(),
  size: z.string().max(8).optional(),
  moduleShape: z.string().max(16).optional(),
  finderShape: z.string().max(16).optional(),
  finderColor: z.string().max(16).optional(),
  logoId: z.string().max(64).optional(),
  logoScale: z.string().max(8).optional(),
  frameText: z.string().max(64).optional(),
  frameColor: z.string().max(16).optional(),
  designName: z
    .string()
    .max(DESIGN_NAME_MAX * 2)
    .optional(),
  _csrf: z.string().optional(),
});

/** An empty form field means "not set". */
const blank = (value: unknown) => (value === '' ? undefined : value);
const optionalColour = z.preprocess(blank, z.string().regex(HEX_COLOUR, 'colours are #RRGGBB').optional());

export const PlaygroundInput = z.object({
  type: z.enum(QR_TYPES, { error: 'choose a content type' }),
  content: z.string(),
  darkColor: optionalColour,
  lightColor: optionalColour,
  outputFormat: z.enum(SCREEN_FORMATS, { error: 'choose an output format' }),
  size: z.enum(SIZES).default('512'),
  moduleShape: z.preprocess(blank, z.enum(MODULE_SHAPES).optional()),
  finderShape: z.preprocess(blank, z.enum(FINDER_SHAPES).optional()),
  finderColor: optionalColour,
  logoId: z.preprocess(blank, z.string().optional()),
  logoScale: z.preprocess(blank, z.coerce.number().min(LOGO_SCALE_LIMITS.min).max(LOGO_SCALE_LIMITS.max).optional()),
  frameText: z.preprocess(
    blank,
    z
      .string()
      .max(FRAME_TEXT_MAX, `a caption has at most ${FRAME_TEXT_MAX} characters`)
      .regex(FRAME_TEXT, 'the caption takes Latin-1 characters only')
      .optional(),
  ),
  frameColor: optionalColour,
});

export type PlaygroundFields = z.infer<typeof PlaygroundInput>;

/** The form's flat fields as the branding options (a colour picker left at the dark colour is unset). */
export function brandingInput(fields: PlaygroundFields) {
  const sameAsDark = (colour: string | undefined) =>
    colour !== undefined && colour.toLowerCase() === (fields.darkColor ?? '#000000').toLowerCase() ? undefined : colour;
  return {
    moduleShape: fields.moduleShape,
    finderShape: fields.finderShape,
    finderColor: sameAsDark(fields.finderColor),
    logo: fields.logoId ? { id: fields.logoId, scale: fields.logoScale } : undefined,
    frame: fields.frameText ? { text: fields.frameText, color: sameAsDark(fields.frameColor) } : undefined,
  };
}
/** The branding choices the page offers (its logos are the account's, added by the route). */
export const BRANDING_CHOICES = {
  moduleShapes: MODULE_SHAPES,
  finderShapes: FINDER_SHAPES,
  frameTextMax: FRAME_TEXT_MAX,
  logoScale: LOGO_SCALE_LIMITS,
};

/** The posted fields as the page shows them back: one left out is an empty string. */
export function formValues(fields: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value ?? '']));
}

/** What was wrong with the form, in one line for the page. */
export function problemsOf(error: z.ZodError): string {
  return error.issues.map((issue) => issue.message).join('; ');
}
