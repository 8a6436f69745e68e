// The API process's composition root: every adapter and service it runs on, built from config — stores, renderer,
// sign-in providers, the in-process scheduler, the webhook sender, the last-used log, the logo cache and normaliser,
// the batch queue.
import type { AdapterLog } from '../adapters/adapter-log.js';
import { PiscinaQrDecoder } from '../adapters/decode/qr-decoder.piscina.js';
import { SharpLogoNormaliser } from '../adapters/imaging/logo-normaliser.sharp.js';
import type { Adapters, StoreAdapters } from '../adapters/contract.js';
import { CachedLogoStore } from '../adapters/logo-store.cached.js';
import { InProcessScheduler } from '../adapters/queue/in-process-scheduler.js';
import { createRenderPipeline, type RenderPipelineDeps } from '../adapters/render/render-pipeline.js';
import { createWebhookSender } from './webhook-sender.js';
import type { Config } from '../config.js';
import type { BatchQueue } from '../domain/ports/batch-queue.js';
import type { LastUsedLog } from '../domain/ports/last-used-log.js';
import type { LogoNormaliser } from '../domain/ports/logo-normaliser.js';
import type { QrDecoder } from '../domain/ports/qr-decoder.js';
import type { LogoStore } from '../domain/ports/logo-store.js';
import { RequestsInFlight } from '../http/plugins/requests-in-flight.js';
import { loadPlanCatalogue, plansSource } from '../plans-file.js';
import { bindJobs } from '../services/background-jobs.js';
import { LastUsedBuffer } from '../services/last-used-buffer.js';
import { assertAccountsOnKnownPlans } from '../services/plans.js';
import type { UniqueCounting } from '../services/scan-stats.js';
import { createBatchQueue } from './batch-queue.js';
import { createGeoLookup } from './geo.js';
import { createBillingProvider } from './billing.js';
import { scanWebhookDispatcher } from './scan-webhooks.js';
import { createDomainProbe, createTxtLookup } from './domain-probe.js';
import type { TxtLookup } from '../domain/ports/txt-lookup.js';
import type { DomainProbe } from '../domain/ports/domain-probe.js';
import { discoverSignIns } from './sign-in.js';
import { signingSealOf } from './signing-seal.js';
import { createStores, type StoreOptions } from './stores.js';

/** What a test may put in place of what config would build; whatever is given here is still closed by the app. */
export interface ApiOverrides extends Omit<StoreOptions, 'log'> {
  /** Stores made by the caller (e.g. over a SQLite connection a test fills up). */
  stores?: StoreAdapters;
  /**
   * Render-pool settings only a fault test needs (a thread entry that crashes, a small heap); the rest of the pipeline
   * is as configured.
   */
  renderPool?: RenderPipelineDeps['pool'];
  /** Deadline for each provider's OIDC discovery at start-up (default 5 s). */
  discoveryTimeoutMs?: number;
  /** The custom-domain check (tests point it at the service's own listening port). */
  domainProbe?: DomainProbe;
}

export interface ApiOptions {
  overrides?: ApiOverrides | undefined;
  clock: () => Date;
  /** How often the in-process scheduler flushes last-used times (default 5 s). */
  lastUsedFlushMs?: number | undefined;
}

/** Everything the HTTP layer registers its routes on; buildApp starts it when ready and closes it with the app. */
export interface ApiServices {
  adapters: Adapters;
  clock: () => Date;
  /** Where each authenticated request notes its key's use. */
  lastUsed: Pick<LastUsedLog, 'record'>;
  /** The logo store behind a cache: a branded code with a known logo costs no store read. */
  logos: LogoStore;
  normaliser: LogoNormaliser;
  /** Reads the codes in an uploaded image (POST /decode), on its own worker thread. */
  decoder: QrDecoder;
  /** Where batches are sent to render; absent when this configuration has no batch store. */
  batchQueue: BatchQueue | undefined;
  /** The API requests in flight, which in-process batch rendering yields to. */
  requestsInFlight: RequestsInFlight;
  /** How the scan statistics count unique scanners: HyperLogLogs with Redis, exactly in the embedded default. */
  uniqueCounting: UniqueCounting;
  /** Checks that a custom domain's hostname reaches this service (on demand; the job has its own in the worker). */
  domainProbe: DomainProbe;
  /** The TXT lookup that proves custom domains (DNS_SERVERS). */
  domainDns: TxtLookup;
  /** After the app is ready: resumes the batches a previous run left unfinished. */
  start(): Promise<void>;
  /** The running batch chunk finishes, the scheduler flushes last-used times once more, then every adapter closes. */
  close(): Promise<void>;
}

export async function createApiAdapters(
  config: Config,
  log: AdapterLog,
  overrides: ApiOverrides = {},
): Promise<Adapters> {
  // The plans file is read before anything opens: a mistake in it stops start-up at once.
  const plans = loadPlanCatalogue(config.plansFile);
  // The geo databases are read off the event loop while the stores open; awaited (and their failure met) below.
  const geoRead = createGeoLookup(config);
  geoRead.catch(() => undefined);
  const stores = overrides.stores ?? (await createStores(config, { log, ...overrides }));
  try {
    const renderer = createRenderPipeline(config, {
      log,
      plans,
      ...(overrides.renderPool ? { pool: overrides.renderPool } : {}),
    });
    const signIn = await discoverSignIns(config, log, overrides.discoveryTimeoutMs);
    const billing = await createBillingProvider(config, log);
    if (billing && !plans.plans.some((plan) => plan.stripePriceId)) {
      log.warn(
        {},
        'stripe: STRIPE_SECRET_KEY is set but no plan names a stripePriceId: nothing can be bought (QR_PLANS_FILE)',
      );
    }
    return {
      ...stores,
      plans,
      renderer,
      signIn,
      signingSeal: signingSealOf(config),
      geo: await geoRead,
      ...(billing ? { billing } : {}),
      probes: { ...stores.probes, renderer: () => renderer.probe() },
      async close() {
        await renderer.close();
        await stores.close();
      },
    };
  } catch (error) {
    await stores.close();
    throw error;
  }
}

export async function createApiServices(config: Config, log: AdapterLog, options: ApiOptions): Promise<ApiServices> {
  const { clock } = options;
  const adapters = await createApiAdapters(config, log, options.overrides);
  try {
    await assertAccountsOnKnownPlans(adapters.plans, adapters.accounts, plansSource(config.plansFile));
  } catch (error) {
    await adapters.close();
    throw error;
  }
  const lastUsed = adapters.lastUsed ?? new LastUsedBuffer();
  const webhookSender = createWebhookSender(config);
  const domainProbe = options.overrides?.domainProbe ?? createDomainProbe(config);
  const domainDns = createTxtLookup(config);
  // Embedded: the background jobs run here on an in-process scheduler; in production the jobs process runs them.
  const jobs =
    adapters.jobs === 'jobs-process'
      ? undefined
      : new InProcessScheduler(
          bindJobs({
            ...adapters,
            lastUsed,
            clock,
            batchRetentionMs: config.batchRetentionMs,
            webhookSender,
            scanWebhookDispatcher: scanWebhookDispatcher(adapters, webhookSender, clock, log),
            domainProbe,
            domainDns,
            log,
          }),
          {
            log,
            everyMs: {
              'last-used-flush': options.lastUsedFlushMs ?? 5_000,
              'batch-webhooks': 5_000,
              'scan-webhooks': 1_000,
            },
            runOnStop: ['last-used-flush'],
          },
        );
  jobs?.start();
  const requestsInFlight = new RequestsInFlight();
  const decoder = new PiscinaQrDecoder({
    budgetMs: config.decodeBudgetMs,
    ...(config.decodeThreads ? { threads: config.decodeThreads } : {}),
  });
  const batchQueue = await createBatchQueue(config, adapters, {
    clock,
    log,
    webhookSender,
    syncBusy: () => requestsInFlight.busy(),
  });
  return {
    adapters,
    clock,
    lastUsed,
    logos: new CachedLogoStore(adapters.logos),
    normaliser: new SharpLogoNormaliser(),
    decoder,
    batchQueue: batchQueue?.queue,
    requestsInFlight,
    uniqueCounting: adapters.scanCounters ? 'hyperloglog' : 'exact',
    domainProbe,
    domainDns,
    start: async () => {
      await batchQueue?.start();
    },
    async close() {
      await batchQueue?.stop(); // the chunk being rendered finishes; what is left stays pending for the next start
      await jobs?.stop(); // ends with a last flush of the last-used times
      await decoder.close();
      await adapters.close();
    },
  };
}
