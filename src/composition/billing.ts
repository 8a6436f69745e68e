// The payment provider for a process (API or qrm): Stripe when STRIPE_SECRET_KEY is set, otherwise none (plans change
// only by qrm).
import type { AdapterLog } from '../adapters/adapter-log.js';
import type { Config } from '../config.js';
import type { BillingProvider } from '../domain/ports/billing-provider.js';

/** Loaded only when configured: the embedded default starts without the Stripe library. */
export async function createBillingProvider(
  config: Pick<Config, 'stripe'>,
  log: AdapterLog,
): Promise<BillingProvider | undefined> {
  if (!config.stripe) return undefined;
  const { StripeBillingProvider } = await import('../adapters/stripe/billing-provider.stripe.js');
  return new StripeBillingProvider(config.stripe, log);
}
