// Dynamic codes in the portal: create, change target and campaign, pause, delete, see and download the image, scans.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CODE_NAME_MAX_LENGTH, TARGET_MAX_LENGTH } from '../../../domain/dynamic-code.js';
import type { AuditAction, AuditChanges } from '../../../domain/audit.js';
import { ApiError, type FieldProblem } from '../../../domain/errors.js';
import { dynamicCodeLimit, OUTPUT_FORMATS, planAllowsFormat } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { DEVICE_CLASSES } from '../../../domain/scan.js';
import { ROUTING_LIMITS } from '../../../domain/code-routing.js';
import { PASSWORD_LENGTH } from '../../../domain/password-hash.js';
import {
  createCode,
  deleteCode,
  getCode,
  listCodes,
  PAGE_SIZE,
  updateCode,
  type CodeUpdate,
} from '../../../services/dynamic-codes.js';
import { generateQr, type GenerateQrDeps } from '../../../services/generate-qr.js';
import { renderSpecOf } from '../../../services/render-spec.js';
import { IMAGE_MEDIA_TYPES } from '../../image-media-types.js';
import { codeStats, type ScanStatsDeps } from '../../../services/scan-stats.js';
import { eraseScanStats, type EraseScanStatsDeps } from '../../../services/erase-scan-stats.js';
import { codeShortUrl, shortUrlBase } from '../../short-url.js';
import { noticeFrom, NoticeQuery } from '../notices.js';
import { renderPage } from '../page.js';
import { sendPng } from '../preview-image.js';
import { armsChart, scanCharts } from '../charts.js';
import {
  CampaignForm,
  campaignChange,
  campaignValues,
  postedValues,
  type CampaignFormValues,
} from '../campaign-form.js';

export interface CodesRoutesOptions extends ScanStatsDeps, GenerateQrDeps, EraseScanStatsDeps {
  base: string;
  accounts: AccountStore;
  publicUrl: string | undefined;
}

const NOTICES = {
  created: 'The code was created. Download its image and print it: you can change where it points at any time.',
  updated: 'Saved. Scans go to the new target from now on.',
  campaign: 'Campaign settings saved. Scans follow them from now on.',
  deleted: 'The code was deleted. Scans of it now show a "no longer active" page.',
  erased: 'Its scan data was erased. New scans are counted from zero.',
} as const;

const CodeForm = z.object({
  target: z
    .string()
    .max(TARGET_MAX_LENGTH * 2)
    .optional(),
  name: z
    .string()
    .max(CODE_NAME_MAX_LENGTH * 2)
    .optional(),
  _csrf: z.string().optional(),
});
const StatusForm = z.object({ status: z.enum(['active', 'paused']), _csrf: z.string().optional() });
const CsrfForm = z.object({ _csrf: z.string().optional() });
const CodeParams = z.object({ id: z.string().min(1).max(64) });
const ImageParams = z.object({ id: z.string().min(1).max(64), format: z.enum(OUTPUT_FORMATS) });
/** What a code's page shows beside the problem when a posted change is refused. */
type RefusedExtra = (error: unknown) => Promise<{ problems?: FieldProblem[]; campaign?: CampaignFormValues }>;
/** The code's picture on its page: big enough to scan from the screen, small enough to draw at once. */
const PREVIEW_PX = 256;

/** A form's problem shown on the page it came from; anything else goes to the error pages. */
function formProblem(error: unknown): string {
  if (error instanceof ApiError && error.status < 500 && error.code !== 'not_found') return error.message;
  throw error;
}

export const codesRoutes: FastifyPluginAsyncZod<CodesRoutesOptions> = async (app, options) => {
  const { base } = options;
  const owner = (request: FastifyRequest) => ({ accountId: request.account!.id, plan: request.account!.plan });

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: string; notice?: string; form?: { target?: string; name?: string } } = {},
    status = 200,
  ) => {
    const account = request.account!;
    const plan = options.plans.get(account.plan);
    const [page, count] = await Promise.all([
      listCodes(options, account.id, { limit: PAGE_SIZE.max }),
      options.codes.count(account.id),
    ]);
    const limit = dynamicCodeLimit(plan);
    return renderPage(
      request,
      reply,
      'codes',
      {
        title: 'Dynamic codes',
        nav: 'codes',
        codes: page.items.map((code) => ({
          ...code,
          shortUrl: codeShortUrl(code, shortUrlBase(options.publicUrl, request)),
        })),
        more: page.nextCursor !== null,
        count,
        limit,
        limitReached: limit !== null && count >= limit,
        shortBase: shortUrlBase(options.publicUrl, request),
        targetMax: TARGET_MAX_LENGTH,
        nameMax: CODE_NAME_MAX_LENGTH,
        form: {},
        ...extra,
      },
      status,
    );
  };

  const detailPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { error?: string; notice?: string; problems?: FieldProblem[]; campaign?: CampaignFormValues } = {},
    status = 200,
  ) => {
    const account = request.account!;
    const code = await getCode(options, account.id, id);
    const stats = await codeStats(options, account.id, id, {});
    const plan = options.plans.get(account.plan);
    const armTarget = (arm: string) => {
      const [where = '', index = ''] = arm.split(/:(?=\d+$)/);
      const split =
        where === 'default' ? code.routing.split : code.routing.rules[Number(/\d+/.exec(where)?.[0])]?.split;
      return split?.[Number(index)]?.target;
    };
    const charts = [...scanCharts('Scans per day', stats), armsChart('arms', stats.arms, armTarget)].filter(
      (chart) => chart !== null,
    );
    return renderPage(
      request,
      reply,
      'code',
      {
        title: code.name ?? code.slug,
        nav: 'codes',
        code,
        shortUrl: codeShortUrl(code, shortUrlBase(options.publicUrl, request)),
        stats,
        charts,
        campaign: campaignValues(code.routing),
        deviceClasses: DEVICE_CLASSES,
        maxScansLimit: ROUTING_LIMITS.maxScans,
        utmMax: ROUTING_LIMITS.utmValue,
        passwordLength: PASSWORD_LENGTH,
        formats: OUTPUT_FORMATS.filter((format) => planAllowsFormat(plan, format)),
        targetMax: TARGET_MAX_LENGTH,
        nameMax: CODE_NAME_MAX_LENGTH,
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/codes',
    { config: { access: 'read' }, schema: { hide: true, querystring: NoticeQuery } },
    async (request, reply) => listPage(request, reply, { notice: noticeFrom(NOTICES, request.query.notice) }),
  );

  const codeConfig = (action: 'code.created' | 'code.updated' | 'code.deleted' | 'code.stats_erased') => ({
    access: 'codes.manage' as const,
    audit: [action],
  });
  /** A form posted from a code's page: the code's id in the path, the CSRF token checked, `action` audited. */
  const codeForm = <Body extends z.ZodType>(action: Parameters<typeof codeConfig>[0], body: Body) => ({
    config: codeConfig(action),
    schema: { hide: true, params: CodeParams, body },
    preHandler: app.requireCsrf,
  });
  const audited = (request: FastifyRequest, action: AuditAction, id: string, changes: AuditChanges) =>
    app.audit(request, { accountId: request.account!.id, action, target: { type: 'code', id }, changes });

  /**
   * A change posted from a code's page: applied and audited (its fields, and `audit`), then the page again with
   * `notice`; a refusal (of the form or of the change) shows the page with the problem, and what `refused` adds.
   */
  const changeCode = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    change: () => CodeUpdate,
    { notice, audit = {}, refused }: { notice: string; audit?: AuditChanges; refused?: RefusedExtra },
  ) => {
    try {
      const update = change();
      const code = await updateCode(options, request.account!.id, id, update);
      await audited(request, 'code.updated', code.id, { fields: Object.keys(update), ...audit });
      return reply.redirect(`${base}/codes/${encodeURIComponent(id)}?notice=${notice}`, 303);
    } catch (error) {
      const extra = { error: formProblem(error), ...(await refused?.(error)) };
      return detailPage(request, reply, id, extra, error instanceof ApiError ? error.status : 400);
    }
  };

  app.post(
    '/codes',
    { config: codeConfig('code.created'), schema: { hide: true, body: CodeForm }, preHandler: app.requireCsrf },
    async (request, reply) => {
      const form = { target: request.body.target ?? '', name: request.body.name ?? '' };
      try {
        const code = await createCode(options, owner(request), { target: form.target.trim(), name: form.name || null });
        await audited(request, 'code.created', code.id, { slug: code.slug, target: code.target });
        return reply.redirect(`${base}/codes/${encodeURIComponent(code.id)}?notice=created`, 303);
      } catch (error) {
        const problem = formProblem(error);
        return listPage(request, reply, { error: problem, form }, error instanceof ApiError ? error.status : 400);
      }
    },
  );

  app.get(
    '/codes/:id',
    { config: { access: 'read' }, schema: { hide: true, params: CodeParams, querystring: NoticeQuery } },
    async (request, reply) =>
      detailPage(request, reply, request.params.id, { notice: noticeFrom(NOTICES, request.query.notice) }),
  );

  app.post('/codes/:id', codeForm('code.updated', CodeForm), async (request, reply) =>
    changeCode(
      request,
      reply,
      request.params.id,
      () => ({
        ...(request.body.target === undefined ? {} : { target: request.body.target.trim() }),
        ...(request.body.name === undefined ? {} : { name: request.body.name || null }),
      }),
      { notice: 'updated' },
    ),
  );

  // The campaign settings (expiry, scan limit, rules, UTM, password), checked by the same schema as PATCH /codes/{id}.
  app.post('/codes/:id/campaign', codeForm('code.updated', CampaignForm), async (request, reply) =>
    changeCode(request, reply, request.params.id, () => campaignChange(request.body), {
      notice: 'campaign#campaign',
      refused: async (error) => {
        const code = await getCode(options, request.account!.id, request.params.id);
        return {
          problems: error instanceof ApiError ? (error.fields?.slice(0, 50) ?? []) : [],
          campaign: postedValues(request.body, code.routing.passwordHash !== null),
        };
      },
    }),
  );

  app.post('/codes/:id/status', codeForm('code.updated', StatusForm), async (request, reply) =>
    changeCode(request, reply, request.params.id, () => ({ status: request.body.status }), {
      notice: 'updated',
      audit: { status: request.body.status },
    }),
  );

  // Buttons that act on the whole code: done and audited, then the page that shows the outcome.
  const wholeCodeActions = [
    { path: 'delete', action: 'code.deleted', act: deleteCode, back: () => `${base}/codes?notice=deleted` },
    {
      path: 'stats/erase',
      action: 'code.stats_erased',
      act: eraseScanStats,
      back: (id: string) => `${base}/codes/${encodeURIComponent(id)}?notice=erased`,
    },
  ] as const;
  for (const { path, action, act, back } of wholeCodeActions)
    app.post(`/codes/:id/${path}`, codeForm(action, CsrfForm), async (request, reply) => {
      await act(options, request.account!.id, request.params.id);
      await audited(request, action, request.params.id, {});
      return reply.redirect(back(request.params.id), 303);
    });

  // The code's own picture on its page: the account looking at its code, rendered directly (never through generateQr),
  // so it costs no quota; the printable image below is the one that counts.
  app.get(
    '/codes/:id/preview.png',
    { config: { access: 'read' }, schema: { hide: true, params: CodeParams } },
    async (request, reply) => {
      const account = request.account!;
      const code = await getCode(options, account.id, request.params.id);
      const content = codeShortUrl(code, shortUrlBase(options.publicUrl, request));
      const spec = renderSpecOf({ type: 'url', content, outputFormat: 'png', size: PREVIEW_PX, margin: 2 }, content);
      const { bytes } = await options.renderer.render(spec, { accountId: account.id, plan: account.plan });
      return sendPng(reply, bytes, 'private, no-cache');
    },
  );

  // The printable image: a generation like any other (it counts against the month's requests), as the API's image
  // endpoint does.
  app.get(
    '/codes/:id/image.:format',
    { config: { access: 'generate' }, schema: { hide: true, params: ImageParams } },
    async (request, reply) => {
      const code = await getCode(options, request.account!.id, request.params.id);
      const content = codeShortUrl(code, shortUrlBase(options.publicUrl, request));
      const generated = await generateQr(options, owner(request), {
        type: 'url',
        content,
        outputFormat: request.params.format,
        size: 1024,
      });
      return reply
        .header('Content-Type', IMAGE_MEDIA_TYPES[generated.format])
        .header('Content-Disposition', `attachment; filename="qr-${code.slug}.${generated.format}"`)
        .header('Cache-Control', 'no-store')
        .send(Buffer.from(generated.bytes.buffer, generated.bytes.byteOffset, generated.bytes.byteLength));
    },
  );
};
