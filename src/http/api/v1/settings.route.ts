// /api/v1/QRManager/settings: the calling account's settings — how much of each scan of its codes is kept.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ErrorCode } from '../../../domain/errors.js';
import { SCAN_PRIVACY_LEVELS } from '../../../domain/scan-privacy.js';
import {
  accountSettings,
  changeAccountSettings,
  type AccountSettingsDeps,
} from '../../../services/account-settings.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { keyWithScope } from './route-scope.js';

const scanPrivacy = z
  .enum(SCAN_PRIVACY_LEVELS)
  .describe(
    'How much of a scan is kept. `country` (default): the country, never a region or city; `city`: region and ' +
      'city too ' +
      ("(with the operator's city database); `none`: no place and no unique scanners, only the count, device, " +
        'language and arm. ') +
      'A scan sending `DNT: 1` or `Sec-GPC: 1` is kept as with `none`, whatever this says.',
  );

const SettingsSchema = z.object({ scanPrivacy }).meta({ id: 'AccountSettings' });
const SettingsChange = z.strictObject({ scanPrivacy: scanPrivacy.optional() });

const ERRORS: ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'insufficient_scope',
  'not_found',
  ...COMMON_ERRORS,
];
const tags = ['account'];

export const settingsRoute: FastifyPluginAsyncZod<AccountSettingsDeps> = async (app, deps) => {
  app.get(
    '/QRManager/settings',
    {
      schema: {
        operationId: 'accountSettings',
        summary: "The account's settings",
        tags,
        security: keyWithScope('admin'),
        response: { 200: SettingsSchema, ...problemResponses(ERRORS) },
      },
    },
    async (request) => accountSettings(deps, callerOf(request).accountId),
  );

  app.patch(
    '/QRManager/settings',
    {
      config: { audit: ['settings.changed'] },
      schema: {
        operationId: 'changeAccountSettings',
        summary: "Change the account's settings",
        description:
          'Fields left out keep their value. A change applies to the scans recorded after it, on every ' +
          'instance within a second; ' +
          'what was counted before is not rewritten.',
        tags,
        security: keyWithScope('admin'),
        body: SettingsChange,
        response: {
          200: SettingsSchema,
          ...problemResponses(['invalid_request', 'unsupported_media_type', ...ERRORS]),
        },
      },
    },
    async (request) => {
      const { accountId, plan } = callerOf(request);
      const before = await accountSettings(deps, accountId);
      const after = await changeAccountSettings(deps, accountId, request.body);
      if (after.scanPrivacy !== before.scanPrivacy) {
        await app.audit(request, {
          accountId,
          plan,
          action: 'settings.changed',
          target: { type: 'account', id: accountId },
          changes: { scanPrivacy: after.scanPrivacy },
        });
      }
      return after;
    },
  );
};
