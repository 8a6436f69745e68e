// Configuration: one zod schema over the environment, validated once at start and passed down.
import { z } from 'zod';

const optionalUrl = z.url().optional();
const optionalText = z.string().min(1).optional();

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  QR_DATA_DIR: z.string().min(1).default('./data'),
  REDIS_URL: optionalUrl,
  MONGODB_URL: optionalUrl,
  QR_KEY_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  GOOGLE_CLIENT_ID: optionalText,
  GOOGLE_CLIENT_SECRET: optionalText,
  GOOGLE_ISSUER: z.url().default('https://accounts.google.com'),
  MICROSOFT_CLIENT_ID: optionalText,
  MICROSOFT_CLIENT_SECRET: optionalText,
  MICROSOFT_ISSUER: z.url().default('https://login.microsoftonline.com/common/v2.0'),
  PUBLIC_URL: optionalUrl,
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  RENDER_MAX_QUEUE: z.coerce.number().int().min(0).max(100_000).optional(),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(16_384),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  MAX_HEAP_USED_MB: z.coerce.number().int().min(0).max(65_536).default(0),
});

export interface OidcProviderConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  redisUrl: string | undefined;
  mongodbUrl: string | undefined;
  keyPepper: string | undefined;
  google: OidcProviderConfig | undefined;
  microsoft: OidcProviderConfig | undefined;
  publicUrl: string | undefined;
  sessionSecret: string | undefined;
  logLevel: string;
  renderThreads: number | undefined;
  renderMaxQueue: number | undefined;
  bodyLimitBytes: number;
  shutdownTimeoutMs: number;
  /** After SIGTERM, how long to keep serving (not ready, connections closed after each answer) before the listener closes. */
  shutdownDrainMs: number;
  metricsToken: string | undefined;
  /** Load-shedding thresholds; 0 disables a check. */
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function provider(id: string | undefined, secret: string | undefined, issuer: string, prefix: string): OidcProviderConfig | undefined {
  if (!id && !secret) return undefined;
  if (!id || !secret) throw new ConfigError(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
  return { clientId: id, clientSecret: secret, issuer };
}

/** Pure: reads only the object given, so tests pass their own environment. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset, as in most shells' `VAR=` lines.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  const google = provider(e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET, e.GOOGLE_ISSUER, 'GOOGLE');
  const microsoft = provider(e.MICROSOFT_CLIENT_ID, e.MICROSOFT_CLIENT_SECRET, e.MICROSOFT_ISSUER, 'MICROSOFT');
  if ((google || microsoft) && !e.SESSION_SECRET) throw new ConfigError('SESSION_SECRET: required when a sign-in provider is configured');
  if ((google || microsoft) && !e.PUBLIC_URL) throw new ConfigError('PUBLIC_URL: required when a sign-in provider is configured (OAuth redirect URIs)');
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.QR_DATA_DIR,
    redisUrl: e.REDIS_URL,
    mongodbUrl: e.MONGODB_URL,
    keyPepper: e.QR_KEY_SECRET,
    google,
    microsoft,
    publicUrl: e.PUBLIC_URL,
    sessionSecret: e.SESSION_SECRET,
    logLevel: e.LOG_LEVEL,
    renderThreads: e.RENDER_THREADS,
    renderMaxQueue: e.RENDER_MAX_QUEUE,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    metricsToken: e.METRICS_TOKEN,
    maxEventLoopDelayMs: e.MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: e.MAX_HEAP_USED_MB * 1024 * 1024,
  };
}
