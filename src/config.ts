// Configuration: one zod schema from the environment to the Config type, validated once at start and passed down.
import { isIP } from 'node:net';
import { z } from 'zod';

const optionalUrl = z.url().optional();
const optionalText = z.string().min(1).optional();

/** An on/off variable: `true` or `1` is on, `false` or `0` off. */
const OnOff = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  QR_DATA_DIR: z.string().min(1).default('./data'),
  QR_PLANS_FILE: z.string().min(1).max(4096).optional(),
  REDIS_URL: optionalUrl,
  REDIS_CLUSTER_NODES: optionalText,
  // Not z.url(): a replica-set URI lists several hosts (mongodb://a:27017,b:27017/qrm), which WHATWG URLs refuse.
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// URL')
    .optional(),
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
  RENDER_INLINE_MAX_PIXELS: z.coerce
    .number()
    .int()
    .min(0)
    .max(2048 * 2048)
    .default(1024 * 1024),
  RENDER_SMALL_ON_POOL: z
    .enum(['true', 'false', '1', '0', 'branded'])
    .transform((value) => (value === 'branded' ? 'branded' : value === 'true' || value === '1' ? 'all' : 'none'))
    .optional(),
  DECODE_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  DECODE_BUDGET_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  PRINT_MIN_MODULE_MM: z.coerce.number().min(0.05).max(10).default(0.3),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(16_384),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(300_000),
  CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(120_000),
  BODY_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).max(1_073_741_824).default(65_536),
  BODY_RATE_WINDOW_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  UPLOADS_PER_CALLER: z.coerce.number().int().min(0).max(100_000).default(8),
  UPLOADS_PER_ADDRESS: z.coerce.number().int().min(0).max(100_000).default(32),
  IMAGE_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
  JOB_LOCK_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  MAX_HEAP_USED_MB: z.coerce.number().int().min(0).max(65_536).default(0),
  PORTAL_SIGNIN_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(10),
  PORTAL_KEY_CREATIONS_PER_HOUR: z.coerce.number().int().min(0).max(1_000_000).default(20),
  PORTAL_PREVIEWS_PER_DAY: z.coerce.number().int().min(0).max(1_000_000).default(300),
  BATCH_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  BATCH_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(7 * 24),
  BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  WEBHOOK_ALLOW_PRIVATE: OnOff.optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\S{8,}$/, 'must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S{8,}$/, "must be the webhook endpoint's signing secret (whsec_…)")
    .optional(),
  // The official library's host, port and protocol come from it: tests and stand-ins point it elsewhere.
  STRIPE_API_URL: z
    .url()
    .refine(
      (value) => /^https?:$/.test(new URL(value).protocol) && new URL(value).pathname === '/',
      'must be an http(s) origin with no path',
    )
    .default('https://api.stripe.com'),
  DNS_SERVERS: z
    .string()
    .refine(
      isNameserverList,
      'must be comma-separated nameserver addresses, each an IP with an optional port (1.1.1.1, ' +
        '127.0.0.1:5353, [::1]:53)',
    )
    .optional(),
  ALLOWED_HOSTS: z
    .string()
    .refine(isHostList, 'must be comma-separated hostnames (no scheme, port or path)')
    .optional(),
  TRUST_PROXY: z
    .string()
    .refine(
      isTrustProxy,
      'must be a hop count, or comma-separated proxy addresses or CIDRs (e.g. 10.0.0.0/8, loopback)',
    )
    .optional(),
  GEOIP_CITY_DB: z.string().min(1).max(4096).optional(),
});

/**
 * What Fastify's trustProxy (proxy-addr) accepts, minus `true`: trusting any sender would let every client pick its own
 * address.
 */
function isTrustProxy(value: string): boolean {
  if (/^\d{1,2}$/.test(value)) return true;
  return value.split(',').every((entry) => {
    const [address = '', prefix, ...rest] = entry.trim().split('/');
    if (rest.length > 0) return false;
    if (prefix === undefined && ['loopback', 'linklocal', 'uniquelocal'].includes(address)) return true;
    const family = isIP(address);
    if (family === 0) return false;
    return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  });
}

/** node:dns Resolver#setServers entries: an IP, `ipv4:port` or `[ipv6]:port`. */
function isNameserverList(value: string): boolean {
  return value.split(',').every((entry) => {
    const server = entry.trim();
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server);
    if (bracketed) return isIP(bracketed[1]!) === 6 && (bracketed[2] === undefined || Number(bracketed[2]) <= 65_535);
    if (isIP(server) !== 0) return true;
    const [address = '', port] = server.split(':');
    return isIP(address) === 4 && port !== undefined && /^\d{1,5}$/.test(port) && Number(port) <= 65_535;
  });
}

function isHostList(value: string): boolean {
  return value.split(',').every((entry) => /^[a-z0-9.-]{1,253}$/i.test(entry.trim()));
}

export interface OidcProviderConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
}

/** Self-serve plans through Stripe: present only when both Stripe variables are set. */
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Where the official library sends its requests. */
  api: { protocol: 'http' | 'https'; host: string; port: number };
}

function stripeApi(url: string): StripeConfig['api'] {
  const parsed = new URL(url);
  const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
  return {
    protocol,
    host: parsed.hostname,
    port: parsed.port === '' ? (protocol === 'http' ? 80 : 443) : Number(parsed.port),
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function provider(
  id: string | undefined,
  secret: string | undefined,
  issuer: string,
  prefix: string,
): OidcProviderConfig | undefined {
  if (!id && !secret) return undefined;
  if (!id || !secret) throw new ConfigError(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
  return { clientId: id, clientSecret: secret, issuer };
}

/**
 * One Redis (REDIS_URL) or the seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES): every Redis user connects to it.
 */
export type RedisTarget = { url: string } | { cluster: RedisClusterSeeds };

export interface RedisClusterSeeds {
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
  /** rediss:// entries: TLS to every node. */
  tls: boolean;
}

/**
 * `host:port,…` or `redis://user:pass@host:port` / `rediss://…` entries; credentials and TLS are one for the
 * cluster.
 */
function clusterNodes(list: string): RedisClusterSeeds {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new ConfigError('REDIS_CLUSTER_NODES: name at least one node, host:port');
  const seeds: RedisClusterSeeds = { nodes: [], tls: false };
  const schemes = new Set<string>();
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(/^[a-z]+:\/\//i.test(entry) ? entry : `redis://${entry}`);
    } catch {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES: ${JSON.stringify(entry.replace(/\/\/[^@/]*@/, '//…@'))} is not host:port`,
      );
    }
    if (!/^rediss?:$/.test(url.protocol))
      throw new ConfigError('REDIS_CLUSTER_NODES: entries are host:port, redis:// or rediss:// URLs');
    const port = Number(url.port || 6379);
    if (url.hostname === '' || (url.pathname !== '' && url.pathname !== '/')) {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES: ${JSON.stringify(url.host)} must be host:port (a cluster has no database number)`,
      );
    }
    schemes.add(url.protocol);
    seeds.nodes.push({ host: url.hostname.replace(/^\[|\]$/g, ''), port });
    if (url.username) seeds.username = decodeURIComponent(url.username);
    if (url.password) seeds.password = decodeURIComponent(url.password);
  }
  if (schemes.size > 1)
    throw new ConfigError('REDIS_CLUSTER_NODES: mix of redis:// and rediss:// entries; a cluster is all TLS or none');
  seeds.tls = schemes.has('rediss:');
  return seeds;
}

/**
 * The environment's variables, each checked once, mapped to the Config the service is given. The rules that
 * span variables throw a ConfigError of their own (zod runs this only on an environment every variable passed).
 */
const ConfigSchema = EnvSchema.transform((e) => {
  const google = provider(e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET, e.GOOGLE_ISSUER, 'GOOGLE');
  const microsoft = provider(e.MICROSOFT_CLIENT_ID, e.MICROSOFT_CLIENT_SECRET, e.MICROSOFT_ISSUER, 'MICROSOFT');
  if ((google || microsoft) && !e.SESSION_SECRET)
    throw new ConfigError('SESSION_SECRET: required when a sign-in provider is configured');
  if ((google || microsoft) && !e.PUBLIC_URL)
    throw new ConfigError('PUBLIC_URL: required when a sign-in provider is configured (OAuth redirect URIs)');
  if (e.REDIS_URL && !/^rediss?:$/.test(new URL(e.REDIS_URL).protocol))
    throw new ConfigError('REDIS_URL: must be a redis:// or rediss:// URL');
  if (e.REDIS_URL && e.REDIS_CLUSTER_NODES) {
    throw new ConfigError(
      'REDIS_URL and REDIS_CLUSTER_NODES: set one of them (a single Redis, or the seed nodes of a Redis Cluster)',
    );
  }
  const redis: RedisTarget | undefined = e.REDIS_CLUSTER_NODES
    ? { cluster: clusterNodes(e.REDIS_CLUSTER_NODES) }
    : e.REDIS_URL
      ? { url: e.REDIS_URL }
      : undefined;
  // Production metering, the credential cache and the jobs run on Redis: MongoDB alone has no meter. The one place this
  // rule lives.
  if (e.MONGODB_URL && !redis) {
    throw new ConfigError(
      'MONGODB_URL: needs REDIS_URL or REDIS_CLUSTER_NODES as well (production metering and jobs run on Redis)',
    );
  }
  if (!e.STRIPE_SECRET_KEY !== !e.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError(
      'STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together (a purchase is applied by its webhook)',
    );
  }
  if (e.STRIPE_SECRET_KEY && !e.PUBLIC_URL)
    throw new ConfigError("PUBLIC_URL: required when Stripe is configured (Checkout's return URLs)");
  const stripe: StripeConfig | undefined =
    e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET
      ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, api: stripeApi(e.STRIPE_API_URL) }
      : undefined;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.QR_DATA_DIR,
    /** The operator's plans file (read by plans-file.ts at start); undefined: the built-in plans. */
    plansFile: e.QR_PLANS_FILE,
    redisUrl: e.REDIS_URL,
    /** Where Redis is (REDIS_URL or REDIS_CLUSTER_NODES); undefined: the embedded default. */
    redis,
    mongodbUrl: e.MONGODB_URL,
    keyPepper: e.QR_KEY_SECRET,
    google,
    microsoft,
    publicUrl: e.PUBLIC_URL,
    sessionSecret: e.SESSION_SECRET,
    logLevel: e.LOG_LEVEL,
    renderThreads: e.RENDER_THREADS,
    renderMaxQueue: e.RENDER_MAX_QUEUE,
    /** Images up to this many pixels render on the event loop (cheaper than a thread hop); 0 sends all to the pool. */
    renderInlineMaxPixels: e.RENDER_INLINE_MAX_PIXELS,
    /** Which small renders go to a free thread, a turn's in one task (unset: branded ones, with 2+ cores). */
    renderSmallOnPool: e.RENDER_SMALL_ON_POOL,
    /** Threads reading uploaded images (POST …/decode); undefined: the cores, at most four. */
    decodeThreads: e.DECODE_THREADS,
    /**
     * A decode's time budget: zbar and jsQR start only within it (ZXing always reads); a reader not started is named as
     * skipped.
     */
    decodeBudgetMs: e.DECODE_BUDGET_MS,
    /**
     * The narrowest printed module a sizeMm may give (mm); narrower is refused naming the smallest sizeMm that works.
     */
    printMinModuleMm: e.PRINT_MIN_MODULE_MM,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    /** Node's whole-request deadline (headers and body) and idle-socket timeout; 0 turns either off. */
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    connectionTimeoutMs: e.CONNECTION_TIMEOUT_MS,
    /**
     * A body still arriving must bring this many bytes a second in every window, the first included; 0 turns it off.
     */
    bodyMinBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND,
    bodyRateWindowMs: e.BODY_RATE_WINDOW_MS,
    /**
     * Uploads (bodies over 64 KiB or of unknown length) in flight per API key or portal session, and per address; 0: no
     * cap.
     */
    uploadsPerCaller: e.UPLOADS_PER_CALLER,
    uploadsPerAddress: e.UPLOADS_PER_ADDRESS,
    /**
     * After SIGTERM, how long to keep serving (not ready, connections closed after each answer) before the listener
     * closes.
     */
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    /** Memory for the LRU of rendered images (0 turns it off). */
    imageCacheBytes: e.IMAGE_CACHE_MB * 1024 * 1024,
    /**
     * A background job's lock in the jobs process: a job whose process died is run again after about this long (up to
     * twice).
     */
    jobLockMs: e.JOB_LOCK_MS,
    metricsToken: e.METRICS_TOKEN,
    /** Load-shedding thresholds; 0 disables a check. */
    maxEventLoopDelayMs: e.MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: e.MAX_HEAP_USED_MB * 1024 * 1024,
    /**
     * Per client address: portal sign-in starts (and, apart, OIDC callbacks) a minute, and key creations an hour; 0
     * turns a limit off.
     */
    portalSignInPerMinute: e.PORTAL_SIGNIN_PER_MINUTE,
    portalKeyCreationsPerHour: e.PORTAL_KEY_CREATIONS_PER_HOUR,
    portalPreviewsPerDay: e.PORTAL_PREVIEWS_PER_DAY,
    /** Body limit of POST …/batches alone (the rest of the API keeps bodyLimitBytes). */
    batchBodyLimitBytes: e.BATCH_BODY_LIMIT_BYTES,
    /** How long a finished batch's files and record are kept before the expiry job removes them. */
    batchRetentionMs: e.BATCH_RETENTION_HOURS * 60 * 60 * 1000,
    /**
     * Batch items in flight per process; undefined: 4 a render thread (in the API, one while synchronous requests are
     * in flight).
     */
    batchConcurrency: e.BATCH_CONCURRENCY,
    /** Webhooks may target loopback and private addresses (tests, private networks); off by default. */
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? false,
    /**
     * Fastify trustProxy: which hops may set X-Forwarded-For (client addresses for the portal's limits); undefined
     * trusts none.
     */
    /** Stripe Checkout, the customer portal and its webhooks; undefined: plans change only by `qrm accounts plan`. */
    stripe,
    /** Nameservers asked for custom domains' TXT proofs; empty: the system's. */
    dnsServers: e.DNS_SERVERS === undefined ? [] : e.DNS_SERVERS.split(',').map((server) => server.trim()),
    /** Hostnames besides PUBLIC_URL's (and loopback) on which the API, portal and signed URLs answer. */
    allowedHosts:
      e.ALLOWED_HOSTS === undefined
        ? []
        : e.ALLOWED_HOSTS.split(',').map((host) => host.trim().toLowerCase().replace(/\.$/, '')),
    trustProxy:
      e.TRUST_PROXY === undefined ? undefined : /^\d+$/.test(e.TRUST_PROXY) ? Number(e.TRUST_PROXY) : e.TRUST_PROXY,
    /**
     * A MaxMind or DB-IP city `.mmdb` file: scans also get a region and city; undefined: country only (the shipped
     * database).
     */
    geoipCityDb: e.GEOIP_CITY_DB,
  };
});

/** The service's configuration: exactly what ConfigSchema gives. */
export type Config = z.output<typeof ConfigSchema>;

/** Pure: reads only the object given, so tests pass their own environment. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset, as in most shells' `VAR=` lines.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
