// The playground: a form that generates a code with the account's own quota (it counts, like an API call) and shows it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { QR_TYPES } from '../../../domain/content/types.js';
import { ApiError } from '../../../domain/errors.js';
import { OUTPUT_FORMATS, planAllowsFormat } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { CONTENT_TYPES, generateQr, type GenerateQrDeps } from '../../../services/generate-qr.js';
import { requireAccount } from '../account-guard.js';
import { renderPage } from '../page.js';

export interface PlaygroundRoutesOptions extends GenerateQrDeps {
  base: string;
  accounts: AccountStore;
}

const SIZES = ['256', '512', '1024'] as const;

/** Raw form fields: anything a browser can send is read, then checked below so the form can show what was wrong. */
const PlaygroundForm = z.object({
  type: z.string().max(32).optional(),
  content: z.string().max(8192).optional(),
  outputFormat: z.string().max(16).optional(),
  size: z.string().max(8).optional(),
  _csrf: z.string().optional(),
});

const PlaygroundInput = z.object({
  type: z.enum(QR_TYPES, { error: 'choose a content type' }),
  content: z.string().min(1, 'enter something to encode'),
  outputFormat: z.enum(OUTPUT_FORMATS, { error: 'choose an output format' }),
  size: z.enum(SIZES).default('512'),
});

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

interface PlaygroundState {
  form: { type: string; content: string; outputFormat: string; size: string };
  error?: string;
  result?: { dataUri: string; format: string; bytes: number; requestsRemaining: number | null; qrsRemaining: number | null; resetAt: Date };
}

export const playgroundRoutes: FastifyPluginAsyncZod<PlaygroundRoutesOptions> = async (app, options) => {
  const guard = requireAccount(options);

  const page = (request: FastifyRequest, reply: FastifyReply, state: PlaygroundState, status = 200) => {
    const plan = options.plans.get(request.account!.plan);
    const formats = OUTPUT_FORMATS.map((format) => ({ id: format, allowed: planAllowsFormat(plan, format) }));
    return renderPage(
      request,
      reply,
      'playground',
      { title: 'Playground', nav: 'playground', types: QR_TYPES, formats, sizes: SIZES, examples: EXAMPLES, plan, ...state },
      status,
    );
  };

  app.get('/playground', { schema: { hide: true }, preHandler: guard }, async (request, reply) =>
    page(request, reply, { form: { type: 'url', content: EXAMPLES.url, outputFormat: 'png', size: '512' } }),
  );

  app.post('/playground', { schema: { hide: true, body: PlaygroundForm }, preHandler: [guard, app.requireCsrf] }, async (request, reply) => {
    const form = {
      type: request.body.type ?? '',
      content: request.body.content ?? '',
      outputFormat: request.body.outputFormat ?? '',
      size: request.body.size ?? '512',
    };
    const parsed = PlaygroundInput.safeParse(form);
    if (!parsed.success) return page(request, reply, { form, error: parsed.error.issues.map((issue) => issue.message).join('; ') }, 400);
    const account = request.account!;
    try {
      const input = { ...parsed.data, size: Number(parsed.data.size) };
      const generated = await generateQr(options, { accountId: account.id, plan: account.plan }, input);
      const dataUri = `data:${CONTENT_TYPES[generated.format]};base64,${Buffer.from(generated.bytes).toString('base64')}`;
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
  });
};
