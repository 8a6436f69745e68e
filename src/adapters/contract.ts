// The Adapters contract: what the services and the HTTP layer get from the outside world, as ports only (no driver
// types).
import type { ScanPrivacyLookup } from '../domain/ports/scan-privacy-lookup.js';
import type { AuditLog } from '../domain/ports/audit-log.js';
import type { ApiError } from '../domain/errors.js';
import type { AccountStore } from '../domain/ports/account-store.js';
import type { BillingProvider } from '../domain/ports/billing-provider.js';
import type { BatchResults } from '../domain/ports/batch-results.js';
import type { BatchStore } from '../domain/ports/batch-store.js';
import type { IdTokenVerifier } from '../domain/ports/id-token-verifier.js';
import type { DynamicCodeStore } from '../domain/ports/dynamic-code-store.js';
import type { GeoLookup } from '../domain/ports/geo-lookup.js';
import type { GuessLimiter } from '../domain/ports/guess-limiter.js';
import type { KeyStore } from '../domain/ports/key-store.js';
import type { MemberStore } from '../domain/ports/member-store.js';
import type { SecretSeal } from '../domain/secret-seal.js';
import type { DesignStore } from '../domain/ports/design-store.js';
import type { CustomDomainStore } from '../domain/ports/custom-domain-store.js';
import type { SigningKeyStore } from '../domain/ports/signing-key-store.js';
import type { ScanAllowance } from '../domain/ports/scan-allowance.js';
import type { ScanEventSource, ScanWebhookStore } from '../domain/ports/scan-webhooks.js';
import type { LogoStore } from '../domain/ports/logo-store.js';
import type { LastUsedLog } from '../domain/ports/last-used-log.js';
import type { RenderCaller, Renderer } from '../domain/ports/renderer.js';
import type { ScanCounters, ScanLedger, ScanRecorder } from '../domain/ports/scan-ledger.js';
import type { PlanCatalogue } from '../domain/plan-catalogue.js';
import type { RenderSpec } from '../domain/render-options.js';
import type { OidcProvider, SessionStore } from '../domain/ports/session-store.js';
import type { UsageCounters } from '../domain/ports/usage-counters.js';
import type { UsageLedger } from '../domain/ports/usage-ledger.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';

/** What the render pipeline reports as each render and image-cache lookup happens (the app's metrics listen). */
export interface RenderEvents {
  rendered(format: RenderSpec['format'], seconds: number, outcome: 'ok' | 'rejected' | 'failed'): void;
  cache(result: 'hit' | 'miss'): void;
}

/** The render pool's gauges. */
export interface RenderPoolStats {
  threads: number;
  queueSize: number;
  /** Share of thread time spent rendering since start, 0..1. */
  utilization: number;
  /** Tasks the threads have finished since start (a group of renders is one task). */
  tasksCompleted: number;
}

/** The admission gate's gauges. */
export interface AdmissionStats {
  running: number;
  queued: number;
  accounts: number;
}

export interface RenderPipelineStats {
  pool: RenderPoolStats;
  admission: AdmissionStats;
}

/** One check per dependency, for /readyz: each resolves when the dependency answers and throws when it does not. */
export type Probes = Record<string, () => Promise<void>>;

/** The account records, as the system of record holds them and the app reads them (the app's may be cached). */
export interface AccountRecordStores {
  accounts: AccountStore;
  /** The accounts' members and pending invitations (read on every signed-in portal request). */
  members: MemberStore;
  keys: KeyStore;
  /** Who changed what in each account (append-only). */
  auditLog: AuditLog;
  /** Signing keys of signed image URLs (secrets sealed; the app caches them, dropped everywhere on revocation). */
  signingKeys: SigningKeyStore;
  /** Saved designs (rendering and branding options an account reuses). */
  designs: DesignStore;
  /** Dynamic codes: what each slug points at. */
  codes: DynamicCodeStore;
  /** The accounts' custom domains (hostnames their codes' short URLs may use; vanity slugs live on the codes). */
  domains: CustomDomainStore;
  /** Uploaded logos (branded codes). */
  logos: LogoStore;
  /** Daily scan counts, the system of record the stats are read from. */
  scanLedger: ScanLedger;
  /** The accounts' scan webhook endpoints. */
  scanWebhooks: ScanWebhookStore;
  /**
   * Batches and their rendered files, shared by every API instance and render process (MongoDB mode keeps the batches
   * in QR_DATA_DIR beside it, the files in GridFS).
   */
  batches?: BatchStore;
  batchResults?: BatchResults;
  probes: Probes;
  close(): Promise<void>;
}

/** The system of record as production mode sees it (SQLite or MongoDB), beneath the Redis layer. */
export interface RecordStores extends AccountRecordStores {
  usageLedger: UsageLedger;
}

/**
 * Where counters every instance must share live (the portal's per-address rate limits): @fastify/rate-limit's
 * `redis` client, opaque here, and the key namespace. Absent: each process counts on its own.
 */
export interface SharedRateLimitStore {
  redis: object;
  nameSpace: string;
}

/** The stores: what every process (API, jobs, render, CLI) runs on, and the one way to release them. */
export interface StoreAdapters extends AccountRecordStores {
  meter: UsageMeter;
  /** Portal sessions (server-side, revocable). */
  sessions: SessionStore;
  /** Where the redirect records scans (after answering). */
  scans: ScanRecorder;
  /** Each account's scanPrivacy, as the redirect reads it for every scan it records. */
  scanPrivacy: ScanPrivacyLookup;
  /** Production mode: the hot scan counters (Redis) that the scan rollup copies into the ledger. */
  scanCounters?: ScanCounters;
  /** Scans let through by codes with `maxScans` (taken on the redirect of those codes only). */
  scanAllowance: ScanAllowance;
  /** Wrong password guesses per code and client address. */
  guesses: GuessLimiter;
  /** The scans waiting for the scan webhooks, counted with the statistics. */
  scanEvents: ScanEventSource;
  /** Where the API notes key use for the last-used flush job; absent: the app keeps an in-memory buffer. */
  lastUsed?: LastUsedLog;
  /** Production mode: the hot usage counters (Redis) that the rollup copies into the ledger. */
  usageCounters?: UsageCounters;
  /** Where rolled-up usage is kept, and read back once Redis no longer holds a month. */
  usageLedger?: UsageLedger;
  /** Production mode: the portal's rate limits count here, shared by every instance. */
  rateLimitStore?: SharedRateLimitStore;
  /**
   * Who runs the background jobs: the app on an in-process scheduler (default), or the separate jobs process (BullMQ).
   */
  jobs?: 'in-process' | 'jobs-process';
}

/**
 * A configured sign-in provider: its endpoints and id_token verifier, or `unavailable` when discovery failed at
 * start-up.
 */
export type OidcSignIn =
  | { status: 'ready'; authorizationEndpoint: string; tokenEndpoint: string; verifier: IdTokenVerifier }
  | { status: 'unavailable' };

/**
 * The renderer as the app sees it: the port, plus its gauges for /metrics and each render and cache answer as it
 * happens.
 */
export interface ObservableRenderer extends Renderer {
  stats(): RenderPipelineStats;
  /**
   * Renders waiting for a pool thread, less the batch groups queued behind the batch's own running ones: what a batch
   * yields to.
   */
  othersQueued(): number;
  /**
   * Batch items in groups: one pool task for several specs, each answered with its bytes or its refusal; given
   * `files` (BatchResults.localPaths), the thread writes each image there and answers 'stored'.
   */
  renderManyOnPool(
    specs: RenderSpec[],
    caller: RenderCaller,
    files?: string[],
  ): Promise<Array<Uint8Array | 'stored' | ApiError>>;
  /** One listener (the app's metrics); the app that set it clears it on close. */
  listen(events: RenderEvents | undefined): void;
}

/** Everything the API process runs on: the stores, the renderer and the configured sign-in providers. */
export interface Adapters extends StoreAdapters {
  /**
   * The plans this service offers (QR_PLANS_FILE, or the built-in ones): what metering, headers, batches and the portal
   * read.
   */
  plans: PlanCatalogue;
  renderer: ObservableRenderer;
  /** One entry per configured provider (none: local sign-in only). */
  signIn: Partial<Record<OidcProvider, OidcSignIn>>;
  /** Seals and opens signing-key secrets (the key derived from the operator's secret). */
  signingSeal: SecretSeal;
  /** Stripe, when configured: self-serve plans (Checkout, the customer portal, its webhooks). */
  billing?: BillingProvider;
  /** Where scans come from: the shipped country database, and GEOIP_CITY_DB's cities; loaded once per process. */
  geo: GeoLookup;
}
