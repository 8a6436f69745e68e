// The playground: a form (per content type, from the API's schemas) that generates a code with the account's quota,
// a live preview that is not metered (limited per session a day), and reading codes back (decode).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { QR_TYPES } from '../../../domain/content/types.js';
import type { LogoStore } from '../../../domain/ports/logo-store.js';
import { ApiError } from '../../../domain/errors.js';
import { planAllowsFormat } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { DECODE_READERS, type DecodedCode, type QrDecoder } from '../../../domain/ports/qr-decoder.js';
import { generateQr, type GenerateQrDeps } from '../../../services/generate-qr.js';
import { fullSpecOf, type GenerateQrInput } from '../../../services/render-spec.js';
import { encodeContent } from '../../../domain/content/index.js';
import { CONTENT_FORMS, contentFromForm } from '../content-form.js';
import {
  BRANDING_CHOICES,
  brandingInput,
  formValues,
  PlaygroundForm,
  type PlaygroundFields,
  PlaygroundInput,
  problemsOf,
  SCREEN_FORMATS,
  SIZES,
} from '../playground-form.js';
import type { PortalRateLimits } from '../rate-limits.js';
import type { DesignOptions } from '../../../domain/design.js';
import type { DesignStore } from '../../../domain/ports/design-store.js';
import { createDesign } from '../../../services/designs.js';
import { meterRequest } from '../../../services/meter-request.js';
import { DECODE_MAX_BYTES, DECODE_MAX_PIXELS, decodeOrGiveBack } from '../../api/v1/decode.route.js';
import { IMAGE_MEDIA_TYPES } from '../../image-media-types.js';
import { renderPage } from '../page.js';
import { renderFitting, sendPng } from '../preview-image.js';

export interface PlaygroundRoutesOptions extends GenerateQrDeps {
  base: string;
  accounts: AccountStore;
  logos: LogoStore;
  /** Reads codes back: the API's decoder (worker thread, ZXing and jsQR). */
  decoder: QrDecoder;
  limits: Pick<PortalRateLimits, 'playgroundPreview'>;
  designs: DesignStore;
}

const DECODE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
/** The form's image field is a data: URI of one of the decode media types (the image just generated, base64). */
const DATA_URI = /^data:(image\/(?:png|jpeg|webp));base64,([A-Za-z0-9+/]*={0,2})$/;
/** What the no-script form may post: the generated image as a data URI, base64 (4/3 of the bytes) plus the token. */
const DECODE_FORM_LIMIT = Math.ceil((DECODE_MAX_BYTES * 4) / 3) + 4096;

/** The live preview's side: enough to see the design, cheap to draw on every pause in typing. */
const PREVIEW_PX = 256;

/** What the form asks to draw: the type's fields as a content object when any is filled in, else the text box. */
function requestOf(
  fields: PlaygroundFields,
  form: Record<string, string>,
  outputFormat: GenerateQrInput['outputFormat'],
  size: number,
): GenerateQrInput {
  const content = contentFromForm(fields.type, form) ?? fields.content;
  if (content === '') throw new ApiError('invalid_request', 'enter something to encode, or fill in the fields');
  return {
    type: fields.type,
    content,
    outputFormat,
    size,
    darkColor: fields.darkColor,
    lightColor: fields.lightColor,
    ...brandingInput(fields),
  };
}

/** A starting point per type, shown as the textarea's placeholder. */
const EXAMPLES: Record<(typeof QR_TYPES)[number], string> = {
  url: 'https://example.com',
  text: 'Hello from QR Manager',
  wifi: 'WIFI:T:WPA;S:MyNetwork;P:secret123;;',
  vcard: 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lovelace;Ada\r\nFN:Ada Lovelace\r\nEND:VCARD',
  pix: '00020126330014br.gov.bcb.pix0111123456789015204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304',
  whatsapp: '+55 11 91234-5678',
  email: 'someone@example.com',
  sms: '+1 555 0100',
  epc: 'BCD\n002\n1\nSCT\nBPOTBEB1\nRed Cross\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund',
  upi: 'upi://pay?pa=shop@okaxis&pn=Corner%20Shop&am=120.00&cu=INR',
  geo: 'geo:13.4125,103.8667',
  tel: '+1-201-555-0123',
  event: 'BEGIN:VEVENT\r\nSUMMARY:Launch\r\nDTSTART:20261201T170000Z\r\nEND:VEVENT',
  mecard: 'MECARD:N:Lovelace,Ada;TEL:+441234567890;;',
};

interface DecodeState {
  codes?: DecodedCode[];
  error?: string;
  requestsRemaining?: number | null;
  /** Readers not run because the decode's time budget ran out. */
  readersSkipped?: string[];
}

interface PlaygroundState {
  form: Record<string, string>;
  error?: string;
  notice?: string;
  decoded?: DecodeState;
  result?: {
    dataUri: string;
    format: string;
    bytes: number;
    requestsRemaining: number | null;
    qrsRemaining: number | null;
    resetAt: Date;
  };
}

export const playgroundRoutes: FastifyPluginAsyncZod<PlaygroundRoutesOptions> = async (app, options) => {
  const page = async (request: FastifyRequest, reply: FastifyReply, state: PlaygroundState, status = 200) => {
    const plan = options.plans.get(request.account!.plan);
    const formats = SCREEN_FORMATS.map((format) => ({ id: format, allowed: planAllowsFormat(plan, format) }));
    const logos = await options.logos.list(request.account!.id);
    const branding = { ...BRANDING_CHOICES, logos };
    return renderPage(
      request,
      reply,
      'playground',
      {
        title: 'Playground',
        nav: 'playground',
        types: QR_TYPES,
        formats,
        sizes: SIZES,
        examples: EXAMPLES,
        plan,
        branding,
        readers: DECODE_READERS,
        contentForms: Object.fromEntries(CONTENT_FORMS),
        decodeMaxBytes: DECODE_MAX_BYTES,
        ...state,
      },
      status,
    );
  };

  app.get('/playground', { config: { access: 'generate' }, schema: { hide: true } }, async (request, reply) =>
    page(request, reply, { form: { type: 'url', content: EXAMPLES.url, outputFormat: 'png', size: '512' } }),
  );

  // The live preview: the form as it stands, drawn small, not metered against the plan (quota is for what is kept),
  // so it is limited per session a day instead. PNG bytes, or problem+json saying what is wrong with the form.
  app.post(
    '/api/playground/preview',
    {
      config: { access: 'generate', audit: { exempt: 'draws a preview; nothing is kept' } },
      schema: { hide: true, body: PlaygroundForm },
      preHandler: [app.requireCsrf, options.limits.playgroundPreview],
    },
    async (request, reply) => {
      const { _csrf, ...fields } = request.body;
      const form = formValues(fields);
      const parsed = PlaygroundInput.safeParse({ ...form, outputFormat: 'png', size: '256' });
      if (!parsed.success) throw new ApiError('invalid_request', problemsOf(parsed.error));
      const account = request.account!;
      const input = requestOf(parsed.data, form, 'png', PREVIEW_PX);
      const payload = encodeContent(input.type, input.content);
      const spec = await fullSpecOf(options, account.id, input, payload);
      const caller = { accountId: account.id, plan: account.plan };
      return sendPng(reply, await renderFitting(options.renderer, spec, caller), 'no-store');
    },
  );

  app.post(
    '/playground',
    {
      config: { access: 'generate', audit: { exempt: 'draws an image, as POST /generate: only metered' } },
      schema: { hide: true, body: PlaygroundForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const { _csrf, ...fields } = request.body;
      const form = { ...formValues(fields), size: request.body.size ?? '512' };
      const parsed = PlaygroundInput.safeParse(form);
      if (!parsed.success) return page(request, reply, { form, error: problemsOf(parsed.error) }, 400);
      const account = request.account!;
      try {
        const input = requestOf(parsed.data, form, parsed.data.outputFormat, Number(parsed.data.size));
        const generated = await generateQr(options, { accountId: account.id, plan: account.plan }, input);
        const dataUri =
          `data:${IMAGE_MEDIA_TYPES[generated.format]};base64,` + `${Buffer.from(generated.bytes).toString('base64')}`;
        const quota = generated.quota;
        return page(request, reply, {
          form,
          result: {
            dataUri,
            format: generated.format,
            bytes: generated.bytes.byteLength,
            requestsRemaining: quota.requestsRemaining,
            qrsRemaining: quota.qrsRemaining,
            resetAt: quota.resetAt,
          },
        });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
        return page(request, reply, { form, error: error.message }, error.status);
      }
    },
  );

  // "Save as design": the form's look (size, colours, shapes, logo, caption) kept under a name, as POST /designs does.
  app.post(
    '/playground/design',
    {
      config: { access: 'designs.manage', audit: ['design.created'] },
      schema: { hide: true, body: PlaygroundForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const { _csrf, designName, ...fields } = request.body;
      const form = { ...formValues(fields), size: request.body.size ?? '512' };
      const parsed = PlaygroundInput.safeParse({ ...form, outputFormat: 'png' });
      if (!parsed.success) return page(request, reply, { form, error: problemsOf(parsed.error) }, 400);
      const account = request.account!;
      const look = brandingInput(parsed.data);
      const designOptions: DesignOptions = Object.fromEntries(
        Object.entries({
          size: Number(parsed.data.size),
          darkColor: parsed.data.darkColor,
          lightColor: parsed.data.lightColor,
          ...look,
        }).filter(([, value]) => value !== undefined),
      );
      try {
        const design = await createDesign(
          options,
          { accountId: account.id, plan: account.plan },
          { name: designName ?? '', options: designOptions },
        );
        const target = { type: 'design', id: design.id };
        await app.audit(request, {
          accountId: account.id,
          action: 'design.created',
          target,
          changes: { name: design.name },
        });
        return page(
          request,
          reply,
          {
            form,
            notice: `Saved as the design “${design.name}”: give "design": "${design.id}" in a request to use it.`,
          },
          201,
        );
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return page(request, reply, { form, error: error.message }, error.status);
      }
    },
  );

  // Reading a code back: the image itself as the body (a chosen file, posted by the page's script with the token in a
  // header, as logo uploads are), or the form's `image` field holding the image just generated (works without script).
  for (const type of DECODE_MEDIA_TYPES)
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: DECODE_MAX_BYTES }, (_request, body, done) =>
      done(null, body),
    );

  app.post(
    '/playground/decode',
    {
      config: { access: 'generate', audit: { exempt: 'reads an image, as POST /decode: only metered' } },
      bodyLimit: DECODE_FORM_LIMIT,
      schema: { hide: true },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const account = request.account!;
      const form = { type: 'url', content: EXAMPLES.url, outputFormat: 'png', size: '512' };
      const answer = (decoded: DecodeState, status: number) => page(request, reply, { form, decoded }, status);
      const image = imageOf(request.body);
      if (typeof image === 'string') return answer({ error: image }, image.startsWith('choose') ? 415 : 400);
      if (image.length > DECODE_MAX_BYTES)
        return answer({ error: `an image to read is at most ${DECODE_MAX_BYTES} bytes` }, 413);
      try {
        // Metered as the API's decode is: one request, no QR, the playground's burst bucket; it counts whatever comes
        // of the image.
        const metered = await meterRequest(options, { accountId: account.id, plan: account.plan }, 'decodes');
        const outcome = await decodeOrGiveBack(options, metered, {
          image,
          maxPixels: DECODE_MAX_PIXELS,
          accountId: account.id,
        });
        if (!outcome.ok) return answer({ error: outcome.detail }, outcome.reason === 'too_many_pixels' ? 413 : 400);
        const requestsRemaining = metered.quota.requestsRemaining;
        const { readersSkipped } = outcome;
        if (outcome.codes.length === 0)
          return answer(
            {
              error: 'No QR code was found in the image; a sharper, larger or straighter picture may read.',
              requestsRemaining,
              readersSkipped,
            },
            422,
          );
        return answer({ codes: outcome.codes, requestsRemaining, readersSkipped }, 200);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
        return answer({ error: error.message }, error.status);
      }
    },
  );
};

/** The image bytes of a decode post, or why there are none. */
function imageOf(body: unknown): Buffer | string {
  if (Buffer.isBuffer(body)) return body.length > 0 ? body : 'the file is empty; choose an image';
  const field = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).image : undefined;
  if (typeof field !== 'string' || field === '') return 'choose a PNG, JPEG or WebP image to read';
  const match = DATA_URI.exec(field);
  if (!match) return 'the image field is not a PNG, JPEG or WebP data: URI';
  return Buffer.from(match[2]!, 'base64');
}
