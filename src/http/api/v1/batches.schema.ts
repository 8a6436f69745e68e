// Schemas of the batch endpoints: the request body (JSON, or CSV turned into the same shape) and the batch as answered.
import { z } from 'zod';
import { PageQuery, pageSchema } from './list-page.js';
import { BATCH_STATUSES } from '../../../domain/batches/batch.js';
import { BatchCodeFields } from './codes.schema.js';
import { GenerateBody } from './generate.schema.js';
import { label } from './label.js';

/** The largest batch any plan may set; each plan's own limit is checked after the shape. */
export const MAX_ITEMS_PER_REQUEST = 100_000;

/** Under the /api/v1 prefix. */
export const BATCHES_PATH = '/QRManager/batches';

export const BatchDynamicCode = z
  .strictObject(BatchCodeFields)
  .meta({ id: 'BatchDynamicCode' })
  .describe(
    'Makes a new dynamic code (as POST /api/v1/QRManager/codes, without `password`) when the batch is ' +
      "accepted; the item's image encodes its `shortUrl`, " +
      ('and manifest.csv gives its `codeId` and `shortUrl`. The item then has no `content`, and `type` is `url` ' +
        "(or absent). Counted against the plan's ") +
      ('`activeDynamicCodes` for the whole batch at once: a batch that does not fit is refused (409 ' +
        '`code_limit_reached`) and nothing is made or counted.'),
  );

export const BatchItemBody = GenerateBody.extend({
  content: GenerateBody.shape.content
    .optional()
    .describe(`${GenerateBody.shape.content.description ?? ''} Required unless the item has \`dynamic\`.`),
  type: GenerateBody.shape.type
    .optional()
    .describe('The kind of content; required unless the item has `dynamic` (then `url`, or absent).'),
  name: label(200, 1)
    .optional()
    .describe('File name in the archive (sanitised and made unique); default: the item index.'),
  dynamic: BatchDynamicCode.optional(),
});

export const WebhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe('Called once with a signed POST (Standard Webhooks) when the batch finishes.');

export const BatchBody = z.strictObject({
  items: z
    .array(BatchItemBody)
    .min(1)
    .max(MAX_ITEMS_PER_REQUEST)
    .describe('One generate body per code, plus an optional `name`.'),
  webhookUrl: WebhookUrl.optional(),
});

export type BatchBody = z.infer<typeof BatchBody>;

export const BatchParams = z.strictObject({ id: z.string().min(1).max(64).describe('The batch id.') });

export const BatchListQuery = PageQuery;

export const BatchView = z
  .object({
    id: z.string(),
    status: z.enum(BATCH_STATUSES),
    total: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
    createdAt: z.string(),
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
    webhookUrl: z.string().optional(),
    webhook: z
      .object({
        state: z
          .enum(['pending', 'delivered', 'failed', 'refused'])
          .describe(
            'pending: waiting for the batch to finish or for the next attempt; failed: every attempt failed; ' +
              'refused: the target is not allowed (a private address), never sent.',
          ),
        attempts: z.number().int(),
        lastError: z.string().optional().describe('Why the last attempt was not delivered.'),
      })
      .optional()
      .describe('Where the webhook stands, when the batch has a webhookUrl.'),
    archiveUrl: z.string().describe('Where the ZIP of the results is, once the batch has finished.'),
  })
  .meta({ id: 'Batch' });

export const BatchListView = pageSchema(BatchView);
