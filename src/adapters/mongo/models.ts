// The MongoDB collections of the system of record, with the unique indexes that make its rules atomic.
import { Schema, type Connection, type Model } from 'mongoose';
import type { BatchStatus, ItemState, WebhookState } from '../../domain/batches/batch.js';
import type { QrType } from '../../domain/content/types.js';
import type { PlanId } from '../../domain/plan-catalogue.js';
import type { DomainStatus } from '../../domain/custom-domain.js';
import type { DynamicCode } from '../../domain/dynamic-code.js';
import { DEFAULT_LOGO_NAME } from '../../domain/ports/logo-store.js';
import {
  invitationSchema,
  memberSchema,
  ownerCountSchema,
  type InvitationDoc,
  type MemberDoc,
  type OwnerCountDoc,
} from './member-models.js';

export interface AccountDoc {
  _id: string;
  email: string;
  plan: string;
  identity: { provider: string; subject: string };
  createdAt: Date;
  /** Set once the account has a payment-provider customer (Stripe). */
  billing?: {
    customerId: string;
    subscriptionId: string | null;
    status: string | null;
    currentPeriodEnd: Date | null;
    updatedAt: Date;
  };
  /** Absent: the default, country. */
  scanPrivacy?: string;
}

/** A payment-provider event already applied, by its id; MongoDB drops it 30 days after `receivedAt` (TTL index). */
export interface BillingEventDoc {
  _id: string;
  receivedAt: Date;
}

export interface ApiKeyDoc {
  _id: string;
  accountId: string;
  name: string;
  hash: string;
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Null or absent (keys made before scopes existed): every scope. */
  scopes?: string[] | null;
  expiresAt?: Date | null;
  /** Absent for keys made before it was recorded. */
  createdBy?: { type: string; id: string; label: string } | null;
  /**
   * Set while the key is active: one of 0..max-1, unique per account, so the active-key limit holds without
   * transactions.
   */
  activeSlot?: number;
}

export interface SigningKeyDoc {
  _id: string;
  accountId: string;
  name: string;
  sealedSecret: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** Set while the key is active, unique per account (as the API keys' activeSlot). */
  activeSlot?: number;
}

export interface DesignDoc {
  _id: string;
  accountId: string;
  name: string;
  /** The options as JSON text: stored and read back exactly, whatever fields a later version adds. */
  options: string;
  createdAt: Date;
  updatedAt: Date;
  /** One of 0..max-1, unique per account, so the design count limit holds without transactions (as the logos' slot). */
  slot: number;
}

export interface UsageDoc {
  accountId: string;
  period: string;
  requests: number;
  qrs: number;
  version: number;
}

export interface UsageQrDoc {
  accountId: string;
  period: string;
  fingerprint: string;
  type: string | null;
  payload: string | null;
  generations: number;
  firstAt: Date | null;
  lastAt: Date | null;
  version: number;
}

export interface LogoDoc {
  _id: string;
  accountId: string;
  name: string;
  png: Buffer;
  width: number;
  height: number;
  digest: string;
  createdAt: Date;
  /**
   * One of 0..max-1, unique per account, so the logo count limit holds without transactions (as the keys' activeSlot).
   */
  slot: number;
}

/** A dynamic code: the fields named as the code's hold them as they are. */
export interface DynamicCodeDoc extends Pick<
  DynamicCode,
  'accountId' | 'slug' | 'target' | 'name' | 'status' | 'disabledReason' | 'createdAt' | 'updatedAt'
> {
  _id: string;
  /** Only the campaign fields that are set (rules, expiresAt, …); absent on plain codes. */
  routing?: Record<string, unknown>;
  /** On a custom domain (all three set, or all null); the slug is held in `vanity_slugs`. */
  domainId?: string | null;
  vanityHost?: string | null;
  vanitySlug?: string | null;
  /** All-time scans, summed from the code's scan days each time the ledger writes them. */
  scans?: number;
  deletedAt: Date | null;
}

/** A vanity slug held by a code: `_id` is `<hostname>/<slug>`, so the unique primary key keeps it to one code. */
export interface VanitySlugDoc {
  _id: string;
  codeId: string;
  accountId: string;
}

export interface CustomDomainDoc {
  _id: string;
  accountId: string;
  hostname: string;
  token: string;
  status: DomainStatus;
  createdAt: Date;
  verifiedAt: Date | null;
  checkedAt: Date | null;
  checkProblem: string | null;
  /**
   * One of 0..max-1, unique per account, so the domain count limit holds without transactions (as the designs' slot).
   */
  slot: number;
}

/**
 * How many codes (not deleted) an account holds: the conditional increment that keeps the plan limit without
 * transactions.
 */
export interface CodeCountDoc {
  _id: string;
  codes: number;
}

export interface ScanWebhookDoc {
  _id: string;
  accountId: string;
  url: string;
  events: string[];
  createdAt: Date;
}

export interface ScanWebhookCountDoc {
  _id: string;
  endpoints: number;
}

export interface ScanDayDoc {
  codeId: string;
  day: string;
  scans: number;
  uniques: number;
  devices: Record<string, number>;
  languages: Record<string, number>;
  /** Absent on days recorded before splits existed. */
  arms?: Record<string, number>;
  /** Absent on documents written before bots, countries, cities and hours were counted. */
  bots?: number;
  countries?: Record<string, number>;
  cities?: Record<string, number>;
  hours?: Record<string, number>;
  hourUniques?: Record<string, number>;
}

export interface BatchDoc {
  _id: string;
  /**
   * Arrival order across every process (a counter): "newest first" stays exact for batches made in the same
   * millisecond.
   */
  seq: number;
  accountId: string;
  plan: PlanId;
  status: BatchStatus;
  total: number;
  /**
   * Item counts per part of BATCH_CHUNK_SIZE consecutive items (key `p<first index>`), recounted from the items of
   * that part only: a group's recount reads 100 items, not the whole batch. The batch's counts are their sums.
   */
  parts: Record<string, PartCounts>;
  period: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  webhookUrl: string | null;
  /** Absent when the request had none, so the partial unique index leaves such batches alone. */
  idempotencyKey?: string;
  requestHash: string;
  /** null: no webhook, or not finished. */
  webhookState: WebhookState | null;
  webhookAttempts: number;
  webhookNextAt: Date | null;
  /** Why the last attempt was not delivered; absent on documents written before it existed. */
  webhookError?: string | null;
}

export interface PartCounts {
  succeeded?: number;
  failed?: number;
  cancelled?: number;
}

export interface BatchItemDoc {
  batchId: string;
  index: number;
  name: string | null;
  file: string;
  type: QrType;
  fingerprint: string;
  /** The RenderSpec as JSON: exactly what was validated, optional fields and all. */
  spec: string;
  state: ItemState;
  errorCode: string | null;
  /** The cancel that moved the item: it reads back exactly the items it moved, to refund them. */
  cancelMark: string | null;
  /** The dynamic code the item made (absent on items that made none, and on items stored before there were any). */
  codeId?: string | null | undefined;
}

export interface SequenceDoc {
  _id: string;
  n: number;
}

export interface WebhookSecretDoc {
  _id: string;
  secret: string;
  /** The secret a rotation replaced, signing beside `secret` until `previousUntil`. */
  previousSecret?: string | null;
  previousUntil?: Date | null;
}

/** One audit entry; `expiresAt` is when the retention sweep may drop it (null: kept). */
export interface AuditEntryDoc {
  _id: string;
  accountId: string;
  at: Date;
  actor: { type: string; id: string; label: string };
  action: string;
  target: { type: string; id: string };
  ip: string | null;
  userAgent: string | null;
  changes: Record<string, unknown>;
  expiresAt: Date | null;
}

export interface MongoModels {
  accounts: Model<AccountDoc>;
  keys: Model<ApiKeyDoc>;
  signingKeys: Model<SigningKeyDoc>;
  designs: Model<DesignDoc>;
  usage: Model<UsageDoc>;
  usageQrs: Model<UsageQrDoc>;
  logos: Model<LogoDoc>;
  codes: Model<DynamicCodeDoc>;
  codeCounts: Model<CodeCountDoc>;
  vanitySlugs: Model<VanitySlugDoc>;
  customDomains: Model<CustomDomainDoc>;
  scanWebhooks: Model<ScanWebhookDoc>;
  scanWebhookCounts: Model<ScanWebhookCountDoc>;
  scanDays: Model<ScanDayDoc>;
  batches: Model<BatchDoc>;
  batchItems: Model<BatchItemDoc>;
  sequences: Model<SequenceDoc>;
  webhookSecrets: Model<WebhookSecretDoc>;
  billingEvents: Model<BillingEventDoc>;
  auditLog: Model<AuditEntryDoc>;
  members: Model<MemberDoc>;
  ownerCounts: Model<OwnerCountDoc>;
  invitations: Model<InvitationDoc>;
}

const options = { versionKey: false, strict: 'throw' } as const;

/**
 * The shard key of each collection meant to be sharded (docs/deployment.md gives the sh.shardCollection commands and
 * why each key). Every unique index of a collection starts with its key, as MongoDB requires; every find, update,
 * upsert and delete of the adapters names the key's first field, and every upsert the whole key, so mongos sends it to
 * one shard. The collections not listed stay unsharded on the primary shard.
 */
export const SHARD_KEYS = {
  usage: { accountId: 1, period: 1 },
  usage_qrs: { accountId: 1, period: 1, fingerprint: 1 },
  designs: { accountId: 1 },
  logos: { accountId: 1 },
  scan_webhooks: { accountId: 1, _id: 1 },
  scan_days: { codeId: 1, day: 1 },
  batch_items: { batchId: 1, index: 1 },
  // GridFS's own chunks, as MongoDB's documentation shards them: a file's chunks together, read by files_id.
  'batchResults.chunks': { files_id: 1, n: 1 },
} as const satisfies Record<string, Record<string, 1>>;

function accountSchema(): Schema<AccountDoc> {
  const schema = new Schema<AccountDoc>(
    {
      _id: { type: String, required: true },
      email: { type: String, required: true },
      plan: { type: String, required: true },
      identity: { provider: { type: String, required: true }, subject: { type: String, required: true } },
      createdAt: { type: Date, required: true },
      billing: {
        type: new Schema(
          {
            customerId: { type: String, required: true },
            subscriptionId: { type: String, default: null },
            status: { type: String, default: null },
            currentPeriodEnd: { type: Date, default: null },
            updatedAt: { type: Date, required: true },
          },
          { _id: false, ...options },
        ),
        required: false,
      },
      scanPrivacy: { type: String, required: false },
    },
    options,
  );
  // One account per identity: concurrent first sign-ins converge on it.
  schema.index({ 'identity.provider': 1, 'identity.subject': 1 }, { unique: true });
  schema.index({ email: 1, createdAt: 1 });
  // Webhooks about a customer find its account.
  schema.index({ 'billing.customerId': 1 }, { partialFilterExpression: { 'billing.customerId': { $exists: true } } });
  return schema;
}

/** Stripe retries a delivery for up to three days; an applied event's id is kept for 30. */
const BILLING_EVENT_RETENTION_SECONDS = 30 * 24 * 60 * 60;

function billingEventSchema(): Schema<BillingEventDoc> {
  const schema = new Schema<BillingEventDoc>(
    { _id: { type: String, required: true }, receivedAt: { type: Date, required: true } },
    options,
  );
  schema.index({ receivedAt: 1 }, { expireAfterSeconds: BILLING_EVENT_RETENTION_SECONDS });
  return schema;
}

function auditEntrySchema(): Schema<AuditEntryDoc> {
  const pair = { type: { type: String, required: true }, id: { type: String, required: true } };
  const schema = new Schema<AuditEntryDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      at: { type: Date, required: true },
      actor: { ...pair, label: { type: String, required: true } },
      action: { type: String, required: true },
      target: pair,
      ip: { type: String, default: null },
      userAgent: { type: String, default: null },
      changes: { type: Schema.Types.Mixed, default: {} },
      expiresAt: { type: Date, default: null },
    },
    options,
  );
  schema.index({ accountId: 1, at: -1, _id: -1 });
  schema.index({ expiresAt: 1 }, { partialFilterExpression: { expiresAt: { $type: 'date' } } });
  return schema;
}

function apiKeySchema(): Schema<ApiKeyDoc> {
  const schema = new Schema<ApiKeyDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      name: { type: String, required: true },
      hash: { type: String, required: true },
      hint: { type: String, required: true },
      createdAt: { type: Date, required: true },
      lastUsedAt: { type: Date, default: null },
      revokedAt: { type: Date, default: null },
      scopes: { type: [String], default: null },
      expiresAt: { type: Date, default: null },
      createdBy: { type: Schema.Types.Mixed, default: null },
      activeSlot: { type: Number },
    },
    options,
  );
  schema.index({ hash: 1 }, { unique: true });
  schema.index({ accountId: 1, createdAt: -1 });
  schema.index(
    { accountId: 1, activeSlot: 1 },
    { unique: true, partialFilterExpression: { activeSlot: { $exists: true } } },
  );
  return schema;
}

function signingKeySchema(): Schema<SigningKeyDoc> {
  const schema = new Schema<SigningKeyDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      name: { type: String, required: true },
      sealedSecret: { type: String, required: true },
      createdAt: { type: Date, required: true },
      revokedAt: { type: Date, default: null },
      activeSlot: { type: Number },
    },
    options,
  );
  schema.index({ accountId: 1, createdAt: -1 });
  schema.index(
    { accountId: 1, activeSlot: 1 },
    { unique: true, partialFilterExpression: { activeSlot: { $exists: true } } },
  );
  return schema;
}

function designSchema(): Schema<DesignDoc> {
  const schema = new Schema<DesignDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      name: { type: String, required: true },
      options: { type: String, required: true },
      createdAt: { type: Date, required: true },
      updatedAt: { type: Date, required: true },
      slot: { type: Number, required: true },
    },
    { ...options, shardKey: SHARD_KEYS.designs },
  );
  schema.index({ accountId: 1, slot: 1 }, { unique: true });
  schema.index({ accountId: 1, createdAt: -1 });
  return schema;
}

function usageSchema(): Schema<UsageDoc> {
  const schema = new Schema<UsageDoc>(
    {
      accountId: { type: String, required: true },
      period: { type: String, required: true },
      requests: { type: Number, required: true },
      qrs: { type: Number, required: true },
      version: { type: Number, required: true },
    },
    { ...options, shardKey: SHARD_KEYS.usage },
  );
  schema.index({ accountId: 1, period: 1 }, { unique: true });
  return schema;
}

function usageQrSchema(): Schema<UsageQrDoc> {
  const schema = new Schema<UsageQrDoc>(
    {
      accountId: { type: String, required: true },
      period: { type: String, required: true },
      fingerprint: { type: String, required: true },
      type: { type: String, default: null },
      payload: { type: String, default: null },
      generations: { type: Number, required: true },
      firstAt: { type: Date, default: null },
      lastAt: { type: Date, default: null },
      version: { type: Number, required: true },
    },
    { ...options, shardKey: SHARD_KEYS.usage_qrs },
  );
  schema.index({ accountId: 1, period: 1, fingerprint: 1 }, { unique: true });
  schema.index({ accountId: 1, period: 1, lastAt: -1 });
  return schema;
}

function logoSchema(): Schema<LogoDoc> {
  const schema = new Schema<LogoDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      // Logos stored before names existed read as the default name.
      name: { type: String, required: true, default: DEFAULT_LOGO_NAME },
      png: { type: Buffer, required: true },
      width: { type: Number, required: true },
      height: { type: Number, required: true },
      digest: { type: String, required: true },
      createdAt: { type: Date, required: true },
      slot: { type: Number, required: true },
    },
    { ...options, shardKey: SHARD_KEYS.logos },
  );
  schema.index({ accountId: 1, slot: 1 }, { unique: true });
  schema.index({ accountId: 1, createdAt: -1 });
  return schema;
}

function dynamicCodeSchema(): Schema<DynamicCodeDoc> {
  const schema = new Schema<DynamicCodeDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      slug: { type: String, required: true },
      target: { type: String, required: true },
      name: { type: String, default: null },
      status: { type: String, required: true },
      disabledReason: { type: String, default: null },
      routing: { type: Schema.Types.Mixed },
      domainId: { type: String, default: null },
      vanityHost: { type: String, default: null },
      vanitySlug: { type: String, default: null },
      scans: { type: Number, default: 0 },
      createdAt: { type: Date, required: true },
      updatedAt: { type: Date, required: true },
      deletedAt: { type: Date, default: null },
    },
    { ...options, minimize: false },
  );
  // Deleted codes keep their slug: it is never given to another code.
  schema.index({ slug: 1 }, { unique: true });
  schema.index({ accountId: 1, deletedAt: 1, createdAt: -1, _id: -1 });
  schema.index({ accountId: 1, deletedAt: 1, scans: -1, _id: -1 });
  schema.index({ domainId: 1, deletedAt: 1 });
  return schema;
}

function vanitySlugSchema(): Schema<VanitySlugDoc> {
  return new Schema<VanitySlugDoc>(
    {
      _id: { type: String, required: true },
      codeId: { type: String, required: true },
      accountId: { type: String, required: true },
    },
    options,
  );
}

function customDomainSchema(): Schema<CustomDomainDoc> {
  const schema = new Schema<CustomDomainDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      hostname: { type: String, required: true },
      token: { type: String, required: true },
      status: { type: String, required: true },
      createdAt: { type: Date, required: true },
      verifiedAt: { type: Date, default: null },
      checkedAt: { type: Date, default: null },
      checkProblem: { type: String, default: null },
      slot: { type: Number, required: true },
    },
    options,
  );
  // One account per hostname, across all accounts.
  schema.index({ hostname: 1 }, { unique: true });
  schema.index({ accountId: 1, slot: 1 }, { unique: true });
  schema.index({ status: 1, checkedAt: 1 });
  return schema;
}

function codeCountSchema(): Schema<CodeCountDoc> {
  return new Schema<CodeCountDoc>(
    { _id: { type: String, required: true }, codes: { type: Number, required: true } },
    options,
  );
}

function scanWebhookSchema(): Schema<ScanWebhookDoc> {
  const schema = new Schema<ScanWebhookDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      url: { type: String, required: true },
      events: { type: [String], required: true },
      createdAt: { type: Date, required: true },
    },
    { ...options, shardKey: SHARD_KEYS.scan_webhooks },
  );
  schema.index({ accountId: 1, createdAt: 1 });
  return schema;
}

function scanDaySchema(): Schema<ScanDayDoc> {
  const schema = new Schema<ScanDayDoc>(
    {
      codeId: { type: String, required: true },
      day: { type: String, required: true },
      scans: { type: Number, required: true },
      uniques: { type: Number, required: true },
      devices: { type: Schema.Types.Mixed, required: true },
      languages: { type: Schema.Types.Mixed, required: true },
      arms: { type: Schema.Types.Mixed },
      bots: { type: Number },
      countries: { type: Schema.Types.Mixed },
      cities: { type: Schema.Types.Mixed },
      hours: { type: Schema.Types.Mixed },
      hourUniques: { type: Schema.Types.Mixed },
    },
    { ...options, minimize: false, shardKey: SHARD_KEYS.scan_days },
  );
  schema.index({ codeId: 1, day: 1 }, { unique: true });
  return schema;
}

function batchSchema(): Schema<BatchDoc> {
  const schema = new Schema<BatchDoc>(
    {
      _id: { type: String, required: true },
      seq: { type: Number, required: true },
      accountId: { type: String, required: true },
      plan: { type: String, required: true },
      status: { type: String, required: true },
      total: { type: Number, required: true },
      parts: { type: Schema.Types.Mixed, default: {} },
      period: { type: String, required: true },
      createdAt: { type: Date, required: true },
      startedAt: { type: Date, default: null },
      finishedAt: { type: Date, default: null },
      webhookUrl: { type: String, default: null },
      idempotencyKey: { type: String },
      requestHash: { type: String, default: '' },
      webhookState: { type: String, default: null },
      webhookAttempts: { type: Number, required: true },
      webhookNextAt: { type: Date, default: null },
      webhookError: { type: String, default: null },
    },
    { ...options, minimize: false },
  );
  schema.index({ accountId: 1, seq: -1 });
  // A replay with the same key finds the first batch; concurrent first requests collide here, and one wins.
  schema.index(
    { accountId: 1, idempotencyKey: 1 },
    { unique: true, partialFilterExpression: { idempotencyKey: { $exists: true } } },
  );
  schema.index({ status: 1, seq: 1 });
  schema.index({ finishedAt: 1 });
  schema.index({ webhookState: 1, webhookNextAt: 1 });
  return schema;
}

function batchItemSchema(): Schema<BatchItemDoc> {
  const schema = new Schema<BatchItemDoc>(
    {
      batchId: { type: String, required: true },
      index: { type: Number, required: true },
      name: { type: String, default: null },
      file: { type: String, required: true },
      type: { type: String, required: true },
      fingerprint: { type: String, required: true },
      spec: { type: String, required: true },
      state: { type: String, required: true },
      errorCode: { type: String, default: null },
      cancelMark: { type: String, default: null },
      codeId: { type: String, default: null },
    },
    { ...options, shardKey: SHARD_KEYS.batch_items },
  );
  schema.index({ batchId: 1, index: 1 }, { unique: true });
  // The counts of a batch are recounted from its items (covered by this index).
  schema.index({ batchId: 1, state: 1 });
  return schema;
}

/** Models bound to this connection only; their indexes are built before the stores are used. */
export async function createMongoModels(connection: Connection): Promise<MongoModels> {
  const models = defineMongoModels(connection);
  await Promise.all(Object.values(models).map((model: Model<unknown>) => model.createIndexes()));
  return models;
}

/** The models on this connection, declared only: no index built, no command sent. */
export function defineMongoModels(connection: Connection): MongoModels {
  return {
    accounts: connection.model<AccountDoc>('Account', accountSchema(), 'accounts'),
    keys: connection.model<ApiKeyDoc>('ApiKey', apiKeySchema(), 'api_keys'),
    signingKeys: connection.model<SigningKeyDoc>('SigningKey', signingKeySchema(), 'signing_keys'),
    designs: connection.model<DesignDoc>('Design', designSchema(), 'designs'),
    usage: connection.model<UsageDoc>('Usage', usageSchema(), 'usage'),
    usageQrs: connection.model<UsageQrDoc>('UsageQr', usageQrSchema(), 'usage_qrs'),
    logos: connection.model<LogoDoc>('Logo', logoSchema(), 'logos'),
    codes: connection.model<DynamicCodeDoc>('DynamicCode', dynamicCodeSchema(), 'dynamic_codes'),
    codeCounts: connection.model<CodeCountDoc>('DynamicCodeCount', codeCountSchema(), 'dynamic_code_counts'),
    vanitySlugs: connection.model<VanitySlugDoc>('VanitySlug', vanitySlugSchema(), 'vanity_slugs'),
    customDomains: connection.model<CustomDomainDoc>('CustomDomain', customDomainSchema(), 'custom_domains'),
    scanDays: connection.model<ScanDayDoc>('ScanDay', scanDaySchema(), 'scan_days'),
    scanWebhooks: connection.model<ScanWebhookDoc>('ScanWebhook', scanWebhookSchema(), 'scan_webhooks'),
    scanWebhookCounts: connection.model<ScanWebhookCountDoc>(
      'ScanWebhookCount',
      new Schema<ScanWebhookCountDoc>(
        { _id: { type: String, required: true }, endpoints: { type: Number, required: true } },
        options,
      ),
      'scan_webhook_counts',
    ),
    batches: connection.model<BatchDoc>('Batch', batchSchema(), 'batches'),
    batchItems: connection.model<BatchItemDoc>('BatchItem', batchItemSchema(), 'batch_items'),
    sequences: connection.model<SequenceDoc>(
      'Sequence',
      new Schema<SequenceDoc>({ _id: { type: String, required: true }, n: { type: Number, required: true } }, options),
      'sequences',
    ),
    webhookSecrets: connection.model<WebhookSecretDoc>(
      'WebhookSecret',
      new Schema<WebhookSecretDoc>(
        {
          _id: { type: String, required: true },
          secret: { type: String, required: true },
          previousSecret: { type: String, default: null },
          previousUntil: { type: Date, default: null },
        },
        options,
      ),
      'webhook_secrets',
    ),
    billingEvents: connection.model<BillingEventDoc>('BillingEvent', billingEventSchema(), 'billing_events'),
    auditLog: connection.model<AuditEntryDoc>('AuditEntry', auditEntrySchema(), 'audit_log'),
    members: connection.model<MemberDoc>('Member', memberSchema(), 'members'),
    ownerCounts: connection.model<OwnerCountDoc>('OwnerCount', ownerCountSchema(), 'owner_counts'),
    invitations: connection.model<InvitationDoc>('Invitation', invitationSchema(), 'invitations'),
  };
}
