// Use case: the account's webhook signing secret — shown when a webhook is registered, and rotated with an overlap.
import type { BatchStore } from '../domain/ports/batch-store.js';

/** How long a replaced secret keeps signing beside the new one, so receivers can switch without losing a message. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookSecretDeps {
  secrets: Pick<BatchStore, 'webhookSecret' | 'rotateWebhookSecret'>;
  clock: () => Date;
}

export interface RotatedSecret {
  secret: string;
  /** Until then every webhook is signed with both the new and the replaced secret. */
  previousValidUntil: Date;
}

export async function rotateWebhookSecret(deps: WebhookSecretDeps, accountId: string): Promise<RotatedSecret> {
  const previousValidUntil = new Date(deps.clock().getTime() + WEBHOOK_SECRET_OVERLAP_MS);
  return { secret: await deps.secrets.rotateWebhookSecret(accountId, previousValidUntil), previousValidUntil };
}
