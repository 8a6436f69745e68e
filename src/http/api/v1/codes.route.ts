// /api/v1/QRManager/codes: dynamic codes — create, list, read, change, delete, their image (metered) and their scan
// statistics.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, type ErrorCode } from '../../../domain/errors.js';
import { createCode, deleteCode, getCode, listCodes, updateCode } from '../../../services/dynamic-codes.js';
import { generateQr, type GenerateQrDeps } from '../../../services/generate-qr.js';
import { IMAGE_MEDIA_TYPES } from '../../image-media-types.js';
import { codeStats, scanSummaries, type ScanStatsDeps } from '../../../services/scan-stats.js';
import { eraseScanStats } from '../../../services/erase-scan-stats.js';
import type { ScanCounters } from '../../../domain/ports/scan-ledger.js';
import type { DynamicCode } from '../../../domain/dynamic-code.js';
import { accountStatsCsv, codeStatsCsv, STATS_CSV_HEADER } from '../../../services/stats-export.js';
import { header, imageResponses } from '../../openapi/operation-doc.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { codeShortUrl, shortUrlBase } from '../../short-url.js';
import type { CustomDomainStore } from '../../../domain/ports/custom-domain-store.js';
import {
  CodeImageQuery,
  CodePageSchema,
  CodeParams,
  CodeSchema,
  codeView,
  CreateCodeBody,
  ListCodesQuery,
  StatsQuery,
  CodeStatsQuery,
  StatsSchema,
  UpdateCodeBody,
} from './codes.schema.js';
import { sendGeneratedImage } from '../../image-reply.js';
import { GENERATE_ERRORS } from './generate.route.js';
import { callerOf } from './api-key-auth.js';
import { keyWithScope } from './route-scope.js';

export interface CodesRouteDeps extends ScanStatsDeps, GenerateQrDeps {
  publicUrl: string | undefined;
  /** Codes may live on the account's custom domains. */
  domains: CustomDomainStore;
  /** Redis mode's hot counters, erased with a code's scans. */
  scanCounters?: ScanCounters | undefined;
}

const AUTH_ERRORS: ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'insufficient_scope',
  ...COMMON_ERRORS,
];
const errors = (...codes: ErrorCode[]) => problemResponses([...codes, ...AUTH_ERRORS]);
const tags = ['dynamic codes'];

export const codesRoute: FastifyPluginAsyncZod<CodesRouteDeps> = async (app, deps) => {
  /** The codes as answered: their short URL on the host asked, and their scans (one ledger read for all). */
  const views = async (request: Parameters<typeof shortUrlBase>[1], codes: readonly DynamicCode[]) => {
    const base = shortUrlBase(deps.publicUrl, request);
    const scans = await scanSummaries(deps, codes);
    return codes.map((code) => codeView(code, base, scans.get(code.id)!));
  };
  const view = async (request: Parameters<typeof shortUrlBase>[1], code: DynamicCode) =>
    (await views(request, [code]))[0]!;

  app.post(
    '/QRManager/codes',
    {
      config: { audit: ['code.created'] },
      schema: {
        operationId: 'createDynamicCode',
        summary: 'Create a dynamic code',
        description:
          'A dynamic code encodes a short URL of this service (`shortUrl`); scanning it redirects to `target`, ' +
          'which you can change at any time. ' +
          ("Each account holds at most its plan's `activeDynamicCodes` (deleted codes free their place). " +
            'Creating a code is not metered; its image is.'),
        tags,
        security: keyWithScope('codes:write'),
        body: CreateCodeBody,
        response: {
          201: CodeSchema,
          ...errors(
            'invalid_request',
            'code_limit_reached',
            'slug_taken',
            'payload_too_large',
            'unsupported_media_type',
          ),
        },
        'x-document': { headers: { '201': { Location: header.location('The new code.') } } },
      },
    },
    async (request, reply) => {
      const code = await createCode(deps, callerOf(request), request.body);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'code.created',
        target: { type: 'code', id: code.id },
        changes: { slug: code.slug, target: code.target },
      });
      return reply
        .code(201)
        .header('Location', `${request.url}/${code.id}`)
        .send(await view(request, code));
    },
  );

  app.get(
    '/QRManager/codes',
    {
      schema: {
        operationId: 'listDynamicCodes',
        summary: 'List your dynamic codes, newest first or by scans; search (q) and filter by status, domain or slug',
        tags,
        security: keyWithScope('codes:read'),
        querystring: ListCodesQuery,
        response: { 200: CodePageSchema, ...errors('invalid_request') },
      },
    },
    async (request) => {
      const page = await listCodes(deps, callerOf(request).accountId, request.query);
      return { items: await views(request, page.items), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/QRManager/codes/:id',
    {
      schema: {
        operationId: 'getDynamicCode',
        summary: 'Read a dynamic code',
        tags,
        security: keyWithScope('codes:read'),
        params: CodeParams,
        response: { 200: CodeSchema, ...errors('invalid_request', 'not_found') },
      },
    },
    async (request) => view(request, await getCode(deps, callerOf(request).accountId, request.params.id)),
  );

  app.patch(
    '/QRManager/codes/:id',
    {
      config: { audit: ['code.updated'] },
      schema: {
        operationId: 'updateDynamicCode',
        summary: 'Change where a dynamic code points, its name, or pause it',
        description:
          'A new target is followed by every instance within a second. A paused code answers scans with 410 ' +
          'until it is active again.',
        tags,
        security: keyWithScope('codes:write'),
        params: CodeParams,
        body: UpdateCodeBody,
        response: {
          200: CodeSchema,
          ...errors(
            'invalid_request',
            'not_found',
            'code_disabled',
            'slug_taken',
            'payload_too_large',
            'unsupported_media_type',
          ),
        },
      },
    },
    async (request) => {
      const code = await updateCode(deps, callerOf(request).accountId, request.params.id, request.body);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'code.updated',
        target: { type: 'code', id: code.id },
        changes: { fields: Object.keys(request.body) },
      });
      return view(request, code);
    },
  );

  app.delete(
    '/QRManager/codes/:id',
    {
      config: { audit: ['code.deleted'] },
      schema: {
        operationId: 'deleteDynamicCode',
        summary: 'Delete a dynamic code',
        description: 'Scans of a deleted code answer 410; its short URL is never given to another code.',
        tags,
        security: keyWithScope('codes:write'),
        params: CodeParams,
        response: { 204: z.null().describe('Deleted.'), ...errors('invalid_request', 'not_found') },
      },
    },
    async (request, reply) => {
      await deleteCode(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'code.deleted',
        target: { type: 'code', id: request.params.id },
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/QRManager/codes/:id/image',
    {
      schema: {
        operationId: 'dynamicCodeImage',
        summary: "A dynamic code's image",
        description:
          'The QR code of the `shortUrl`, with the generate options as query parameters. Metered exactly like ' +
          'a generation (type `url`).',
        tags,
        security: keyWithScope('codes:read'),
        params: CodeParams,
        querystring: CodeImageQuery,
        response: problemResponses(['not_found', ...GENERATE_ERRORS, ...COMMON_ERRORS]),
        'x-document': {
          responses: imageResponses(
            "The image of the code's short URL, with the quota headers.",
            Object.values(IMAGE_MEDIA_TYPES),
          ),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const code = await getCode(deps, caller.accountId, request.params.id);
      const content = codeShortUrl(code, shortUrlBase(deps.publicUrl, request));
      const { logoId, logoScale, frameText, frameColor, eci, ...options } = request.query;
      if ((logoScale !== undefined && logoId === undefined) || (frameColor !== undefined && frameText === undefined)) {
        const field = logoScale !== undefined && logoId === undefined ? 'logoScale' : 'frameColor';
        throw new ApiError('invalid_request', `${field} needs ${field === 'logoScale' ? 'logoId' : 'frameText'}`, {
          fields: [{ field, detail: 'given without the option it qualifies' }],
        });
      }
      const input = {
        ...options,
        type: 'url' as const,
        content,
        ...(eci === 'true' ? { eci: true } : {}),
        ...(logoId === undefined ? {} : { logo: { id: logoId, scale: logoScale } }),
        ...(frameText === undefined ? {} : { frame: { text: frameText, color: frameColor } }),
      };
      const result = await generateQr(deps, caller, input, { ifNoneMatch: request.headers['if-none-match'] });
      return sendGeneratedImage(reply, result);
    },
  );

  app.get(
    '/QRManager/codes/:id/stats',
    {
      schema: {
        operationId: 'dynamicCodeStats',
        summary: "A dynamic code's scans",
        description:
          'Scans and unique scanners per day or hour (UTC), totals (crawlers and link previews apart, as ' +
          '`bots`), and the split by device ' +
          'class, country, city (with a city database), browser language and weighted-split arm. ' +
          ('Unique scanners are counted per day over a salted hash of address and user agent whose salt changes ' +
            'every day: no personal data is kept. ') +
          ('The embedded default counts them exactly; with Redis, by a HyperLogLog per code per day (0.81% ' +
            'standard error). ') +
          'With Redis, counts reach these statistics through a rollup that runs every minute. ' +
          "Days older than the plan's `scanRetentionDays` keep only their scans and bots.",
        tags,
        security: keyWithScope('analytics:read'),
        params: CodeParams,
        querystring: CodeStatsQuery,
        response: { 200: StatsSchema, ...errors('invalid_request', 'not_found') },
      },
    },
    async (request) => codeStats(deps, callerOf(request).accountId, request.params.id, request.query),
  );

  app.delete(
    '/QRManager/codes/:id/stats',
    {
      config: { audit: ['code.stats_erased'] },
      schema: {
        operationId: 'eraseDynamicCodeStats',
        summary: "Erase a dynamic code's scans",
        description:
          'Erases all the scan data of the code: every day and hour of the series, devices, countries, cities, ' +
          'languages, split arms, bots, unique scanners and what the CSV exports read. Its all-time scan count is ' +
          'zero afterwards. The scan limit (`maxScans`) still counts the scans it let through. The code keeps ' +
          'redirecting, and new scans are counted from zero.',
        tags,
        security: keyWithScope('codes:write'),
        params: CodeParams,
        response: { 204: z.null().describe('Erased.'), ...errors('invalid_request', 'not_found') },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      await eraseScanStats(deps, caller.accountId, request.params.id);
      await app.audit(request, {
        accountId: caller.accountId,
        plan: caller.plan,
        action: 'code.stats_erased',
        target: { type: 'code', id: request.params.id },
      });
      return reply.code(204).send(null);
    },
  );

  const csvDoc = (description: string) => ({
    responses: {
      '200': {
        description,
        content: { 'text/csv': { schema: { type: 'string' } } },
        headers: {
          'Content-Disposition': {
            description: '`attachment; filename="…csv"`.',
            required: true,
            schema: { type: 'string' },
          },
        },
      },
    },
  });
  const sendCsv = (reply: FastifyReply, file: string, lines: AsyncIterable<string>) =>
    reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${file}"`)
      .send(Readable.from(lines));
  const csvColumns =
    `Columns: \`${STATS_CSV_HEADER}\` (CRLF line ends). Each code-day's totals row (empty \`country\` and ` +
    `\`arm\`) is ` +
    "followed by a row per country and per split arm with that slice's `scans` alone.";

  app.get(
    '/QRManager/codes/stats.csv',
    {
      schema: {
        operationId: 'allDynamicCodeStatsCsv',
        summary: 'Scans of every code of the account, as CSV',
        description:
          `${csvColumns} One row per code and day (UTC) with at least one scan, codes newest first; the ` +
          `figures are those of each code's JSON ` +
          'statistics for the same range (default the last 30 days, at most 366). Streamed a page of codes at a time.',
        tags,
        security: keyWithScope('analytics:read'),
        querystring: StatsQuery,
        response: errors('invalid_request'),
        'x-document': csvDoc('The CSV export.'),
      },
    },
    async (request, reply) => {
      const exported = await accountStatsCsv(deps, callerOf(request).accountId, request.query);
      return sendCsv(reply, `qr-manager-stats-${exported.from}-${exported.to}.csv`, exported.lines);
    },
  );

  app.get(
    '/QRManager/codes/:id/stats.csv',
    {
      schema: {
        operationId: 'dynamicCodeStatsCsv',
        summary: "A dynamic code's scans, as CSV",
        description:
          `${csvColumns} One row per day of the range (UTC), zeros included: exactly the daily \`series\` of the ` +
          `JSON statistics, with the device split per day.`,
        tags,
        security: keyWithScope('analytics:read'),
        params: CodeParams,
        querystring: StatsQuery,
        response: errors('invalid_request', 'not_found'),
        'x-document': csvDoc('The CSV export.'),
      },
    },
    async (request, reply) => {
      const exported = await codeStatsCsv(deps, callerOf(request).accountId, request.params.id, request.query);
      return sendCsv(reply, `${request.params.id}-stats-${exported.from}-${exported.to}.csv`, exported.lines);
    },
  );
};
