// A batch as callers see it (API answers, webhook payloads, the portal): counts, status, ISO times and the archive's
// URL.
import type { Batch, BatchStatus, BatchWebhookStatus } from '../../domain/batches/batch.js';

export interface BatchViewJson {
  id: string;
  status: BatchStatus;
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  webhookUrl?: string;
  webhook?: BatchWebhookStatus;
  archiveUrl: string;
}

export const BATCHES_URL_PATH = '/api/v1/QRManager/batches';

export function batchView(batch: Batch): BatchViewJson {
  return {
    id: batch.id,
    status: batch.status,
    total: batch.total,
    succeeded: batch.succeeded,
    failed: batch.failed,
    cancelled: batch.cancelled,
    createdAt: batch.createdAt.toISOString(),
    ...(batch.startedAt ? { startedAt: batch.startedAt.toISOString() } : {}),
    ...(batch.finishedAt ? { finishedAt: batch.finishedAt.toISOString() } : {}),
    ...(batch.webhookUrl
      ? { webhookUrl: batch.webhookUrl, webhook: batch.webhook ?? { state: 'pending' as const, attempts: 0 } }
      : {}),
    archiveUrl: `${BATCHES_URL_PATH}/${batch.id}/archive`,
  };
}
