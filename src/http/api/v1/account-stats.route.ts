// GET /api/v1/QRManager/stats: the calling account's scans across all its dynamic codes, over time.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ErrorCode } from '../../../domain/errors.js';
import { accountStats } from '../../../services/account-stats.js';
import type { ScanStatsDeps } from '../../../services/scan-stats.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { keyWithScope } from './route-scope.js';
import { AccountStatsQuery, AccountStatsSchema } from './account-stats.schema.js';

const ERRORS: ErrorCode[] = [
  'invalid_request',
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'insufficient_scope',
  ...COMMON_ERRORS,
];

export const accountStatsRoute: FastifyPluginAsyncZod<ScanStatsDeps> = async (app, deps) => {
  app.get(
    '/QRManager/stats',
    {
      schema: {
        operationId: 'accountScanStats',
        summary: "The account's scans across its dynamic codes",
        description:
          'Scans and unique scanners per UTC day (or hour, `interval=hour`, at most 31 days) ' +
          'over `from`..`to` (default the last 30 days, at most 366), totals (bots apart), ' +
          'the ten codes with the most scans, and the device and country splits, ' +
          'summed over every dynamic code of the account. ' +
          'With Redis, counts reach these statistics through a rollup that runs every minute.',
        tags: ['dynamic codes'],
        security: keyWithScope('analytics:read'),
        querystring: AccountStatsQuery,
        response: { 200: AccountStatsSchema, ...problemResponses(ERRORS) },
      },
    },
    async (request) => accountStats(deps, callerOf(request).accountId, request.query),
  );
};
