// The qrm command's composition root: the same stores as the server, built from the same config, and the services'
// dependencies.
import type { StoreAdapters } from '../adapters/contract.js';
import type { Config } from '../config.js';
import type { PlanCatalogue } from '../domain/plan-catalogue.js';
import type { BillingProvider } from '../domain/ports/billing-provider.js';
import { loadPlanCatalogue } from '../plans-file.js';
import { createBillingProvider } from './billing.js';
import { createStores } from './stores.js';

export interface CliAdapters {
  stores: StoreAdapters;
  /** QR_PLANS_FILE's plans, or the built-in ones. */
  plans: PlanCatalogue;
  /** What the account and key services take: the stores, the key pepper, the wall clock and the plans. */
  deps: StoreAdapters & { keyPepper: string | undefined; clock: () => Date; plans: PlanCatalogue };
  /** Stripe, when STRIPE_SECRET_KEY is set (`qrm billing sync`). */
  billing: BillingProvider | undefined;
  close(): Promise<void>;
}

/** In production a revocation made here is pushed to every API instance, as one made in the portal is. */
export async function createCliAdapters(config: Config): Promise<CliAdapters> {
  // Read before anything opens: a mistake in the plans file stops qrm before it touches a store.
  const plans = loadPlanCatalogue(config.plansFile);
  const stores = await createStores(config);
  // Stripe's errors go to stderr: qrm has no log of its own.
  const stderr = (details: object, message: string) =>
    process.stderr.write(`qrm: ${message} ${JSON.stringify(details)}\n`);
  const billing = await createBillingProvider(config, { info() {}, warn: stderr, error: stderr });
  return {
    stores,
    plans,
    deps: { ...stores, keyPepper: config.keyPepper, clock: () => new Date(), plans },
    billing,
    close: () => stores.close(),
  };
}
