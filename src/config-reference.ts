// The configuration reference: one line of prose per environment variable, and docs/configuration.md made from it and
// the schema.
import { z } from 'zod';
import { EnvSchema } from './config.js';

export type EnvName = keyof typeof EnvSchema.shape;

interface EnvDoc {
  /** Where a variable's default is computed rather than fixed (the machine's cores), what it comes to. */
  default?: string;
  /** What it does, for an operator. */
  what: string;
  /** The docs page that says more. */
  page?: string;
}

/** A run of variables a docs page says more about: the page is named once for them all. */
function onPage<K extends EnvName>(page: string, docs: Record<K, Omit<EnvDoc, 'page'>>): Record<K, EnvDoc> {
  const entries = Object.entries<Omit<EnvDoc, 'page'>>(docs).map(([name, doc]) => [name, { ...doc, page }]);
  return Object.fromEntries(entries) as Record<K, EnvDoc>;
}

/** The three variables of one portal sign-in provider: the same lines but for its name and what its issuer is for. */
function signInProvider<P extends 'GOOGLE' | 'MICROSOFT'>(prefix: P, name: string, issuerNote: string) {
  return onPage('portal.md', {
    [`${prefix}_CLIENT_ID`]: {
      what: `${name} sign-in for the portal (with \`${prefix}_CLIENT_SECRET\`, \`SESSION_SECRET\` and \`PUBLIC_URL\`)`,
    },
    [`${prefix}_CLIENT_SECRET`]: { what: `the ${name} OAuth client's secret` },
    [`${prefix}_ISSUER`]: { what: `OIDC issuer discovered at start-up (${issuerNote})` },
  } as Record<`${P}_CLIENT_ID` | `${P}_CLIENT_SECRET` | `${P}_ISSUER`, Omit<EnvDoc, 'page'>>);
}

/** Typed over every variable of the schema: a variable added without its line here does not compile. */
export const ENV_REFERENCE: Record<EnvName, EnvDoc> = {
  PORT: { what: 'listening port' },
  HOST: { what: 'listening address (`0.0.0.0` in containers)' },
  QR_DATA_DIR: { what: 'where the embedded SQLite database and batch files live' },
  QR_PLANS_FILE: { what: 'a JSON file of plans replacing the built-in ones', page: 'plans.md' },
  ...onPage('deployment.md', {
    REDIS_URL: {
      what:
        'Redis for metering, the key cache, sessions and jobs (production mode); the jobs then run in the jobs ' +
        'process, `npm run jobs` (or `npm run worker`)',
    },
    REDIS_CLUSTER_NODES: {
      what:
        'the seed nodes of a Redis Cluster instead of one Redis (`host:port,…`, or `redis://user:pass@host:port` / ' +
        '`rediss://…` entries); not with `REDIS_URL`',
    },
    MONGODB_URL: { what: 'MongoDB as the system of record (production mode); needs `REDIS_URL`' },
  }),
  QR_KEY_SECRET: {
    what: 'pepper for API keys: they are stored as HMAC-SHA-256 under it; changing it invalidates every key',
  },
  ...signInProvider('GOOGLE', 'Google', 'tests point it at a stand-in'),
  ...signInProvider('MICROSOFT', 'Microsoft', 'a tenant-specific one limits sign-in to that tenant'),
  PUBLIC_URL: {
    what:
      "the service's external base URL: OAuth redirects, short URLs of dynamic codes, the OpenAPI `servers`; " +
      'required with a sign-in provider or Stripe',
  },
  SESSION_SECRET: { what: "signs the OAuth flow's PKCE cookie; required with a sign-in provider", page: 'portal.md' },
  LOG_LEVEL: { what: 'pino log level' },
  ...onPage('operations.md', {
    RENDER_THREADS: {
      default: 'the cores',
      what: 'render threads (Piscina) in each process that renders',
    },
    RENDER_MAX_QUEUE: {
      default: 'threads × 1024',
      what:
        'render work allowed to wait, in units of one 512 px image (a 2048 px image is 16); past it, 503 ' +
        '`overloaded`',
    },
  }),
  ...onPage('scan-guarantee.md', {
    DECODE_THREADS: {
      default: 'the cores, at most 4',
      what:
        'threads reading uploaded images (`POST …/decode`, the playground); one account runs on at most half of ' +
        'them at once',
    },
    DECODE_BUDGET_MS: {
      what:
        "a decode's time budget: ZXing always reads the image, zbar and jsQR only start within it (the answer " +
        'names a reader skipped)',
    },
  }),
  PRINT_MIN_MODULE_MM: {
    what:
      'the narrowest module (mm) a `sizeMm` may print; a smaller size is refused with the smallest `sizeMm` that ' +
      'works (docs/print.md)',
    page: 'print.md',
  },
  ...onPage('operations.md', {
    RENDER_INLINE_MAX_PIXELS: {
      what:
        'images up to this many pixels may be drawn without a thread hop; `0` sends every render to its own pool ' +
        'task',
    },
    RENDER_SMALL_ON_POOL: {
      default: '`branded` with 2+ cores, else `false`',
      what:
        'which small renders go to a free render thread, those of one event-loop turn as one task, instead of ' +
        'being drawn on the event loop: `branded` ones only, all (`true`) or none (`false`); while every thread is ' +
        'busy they are drawn inline. `true` pays only where the event loop, not the CPU, runs out first (bench rows ' +
        'c-thread, c-inline, h-branded-thread, h-branded-inline)',
    },
  }),
  BODY_LIMIT_BYTES: { what: 'largest accepted request body (batches have their own)' },
  ...onPage('operations.md', {
    SHUTDOWN_TIMEOUT_MS: { what: 'hard deadline for the whole shutdown after SIGTERM' },
    REQUEST_TIMEOUT_MS: {
      what:
        "a request's headers and body must have arrived within this long (Node's `requestTimeout`, answered with " +
        'its plain `408`); `0` turns it off',
    },
    CONNECTION_TIMEOUT_MS: {
      what: "a connection silent this long is closed (Node's socket timeout); `0` turns it off",
    },
    BODY_MIN_BYTES_PER_SECOND: {
      what:
        'a request body still arriving must bring at least this many bytes a second in each `BODY_RATE_WINDOW_MS`, ' +
        'else `408 request_timeout`; `0` turns it off',
    },
    BODY_RATE_WINDOW_MS: {
      what: 'the window `BODY_MIN_BYTES_PER_SECOND` is measured over (the first one is the grace a body starts with)',
    },
    UPLOADS_PER_CALLER: {
      what:
        'uploads (bodies over 64 KiB or of unknown length) in flight per API key or portal session; past it `429 ' +
        'too_many_uploads` before the body is read; `0` turns it off',
    },
    UPLOADS_PER_ADDRESS: {
      what:
        'uploads in flight per client address (set `TRUST_PROXY` behind a proxy, or every client shares one); past ' +
        'it `429 too_many_uploads`; `0` turns it off',
    },
    IMAGE_CACHE_MB: {
      what:
        'memory for the cache of rendered images (a repeated code is answered from it, still authenticated and ' +
        'metered); `0` turns it off',
    },
    JOB_LOCK_MS: {
      what: 'jobs process: lock on a running job; a job whose process died is run again within about twice this',
    },
    SHUTDOWN_DRAIN_MS: {
      what: 'after SIGTERM, how long to keep serving while `/readyz` reports not ready',
    },
    METRICS_TOKEN: { what: 'when set, `/metrics` requires it as a bearer token' },
    MAX_EVENT_LOOP_DELAY_MS: {
      what: 'event-loop delay past which requests are shed with 503 `overloaded`; `0` disables',
    },
    MAX_HEAP_USED_MB: {
      what: 'heap size past which requests are shed with 503 `overloaded`; `0` disables',
    },
  }),
  ...onPage('portal.md', {
    PORTAL_SIGNIN_PER_MINUTE: {
      what:
        'portal sign-ins started per client address a minute (local sign-in posts that pass the CSRF check, and ' +
        'Google/Microsoft starts; their callbacks have the same limit, counted apart); `0` disables',
    },
    PORTAL_KEY_CREATIONS_PER_HOUR: {
      what:
        'API keys created in the portal per client address an hour (form and JSON API together; only signed-in ' +
        'requests with a valid CSRF token count); `0` disables',
    },
    PORTAL_PREVIEWS_PER_DAY: {
      what:
        'live previews drawn in the playground per portal session a day (not metered against the plan, so limited ' +
        'here; past it `429 preview_limit_reached`); `0` disables the limit',
    },
  }),
  ...onPage('batches.md', {
    BATCH_BODY_LIMIT_BYTES: {
      what:
        'largest accepted body of `POST …/batches` (JSON or CSV); each plan’s own limit follows from its ' +
        '`maxBatchItems`',
    },
    BATCH_RETENTION_HOURS: {
      what: 'finished batches and their files are removed this long after they finish',
    },
    BATCH_CONCURRENCY: {
      default: '4 × render threads',
      what:
        'groups of batch items in flight per process (a group: one pool task rendering several images, their ' +
        'files, one store update); in the API process, one while synchronous requests are in flight',
    },
    WEBHOOK_ALLOW_PRIVATE: {
      default: '`false`',
      what: 'let webhooks reach loopback and private addresses (tests, private networks)',
    },
  }),
  ...onPage('billing.md', {
    STRIPE_SECRET_KEY: {
      what:
        'Stripe secret or restricted key: turns self-serve billing on (with `STRIPE_WEBHOOK_SECRET` and ' +
        '`PUBLIC_URL`)',
    },
    STRIPE_WEBHOOK_SECRET: {
      what: "the Stripe webhook endpoint's signing secret (`whsec_…`); required with `STRIPE_SECRET_KEY`",
    },
    STRIPE_API_URL: {
      what: 'where the Stripe library sends its requests (an origin, no path); leave it unset in production',
    },
  }),
  ...onPage('custom-domains.md', {
    DNS_SERVERS: {
      default: "— (the system's)",
      what:
        "nameservers asked for custom domains' `_qrm-challenge` TXT proofs: comma-separated IPs with optional " +
        'ports (`1.1.1.1,[2606:4700::1111]:53`)',
    },
    ALLOWED_HOSTS: {
      default: '— (none)',
      what:
        "more hostnames of this service besides `PUBLIC_URL`'s and loopback (`localhost`, IP literals): the API, " +
        'portal and signed URLs answer only on these',
    },
  }),
  TRUST_PROXY: {
    default: '— (trust none)',
    what:
      'proxies allowed to name the client in `X-Forwarded-For`: a hop count (`1`) or addresses/CIDRs ' +
      "(`127.0.0.1,10.0.0.0/8`); set it behind a reverse proxy, or every client shares the proxy's address for " +
      'the portal limits',
    page: 'deployment.md',
  },
  GEOIP_CITY_DB: {
    default: '— (country only)',
    what:
      'path of a MaxMind GeoIP2/GeoLite2 or DB-IP city `.mmdb` file: scans also get a region and city (the ' +
      'country comes from the open database shipped with the service); read once at start',
    page: 'privacy.md',
  },
};

interface JsonSchemaProperty {
  default?: unknown;
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  format?: string;
}

/** What a value must be, read from the schema itself (so the page cannot drift from what loadConfig accepts). */
function accepted(property: JsonSchemaProperty): string {
  if (property.enum) return property.enum.map((value) => `\`${value}\``).join(', ');
  if (property.type === 'integer') return `integer ${property.minimum}–${property.maximum}`;
  if (property.format === 'uri') return 'URL';
  if (property.minLength !== undefined && property.minLength > 1) return `text, ≥ ${property.minLength} characters`;
  return 'text';
}

/** docs/configuration.md, as `npm run docs:config` writes it and the docs test expects it. */
export function configurationMarkdown(): string {
  const schema = z.toJSONSchema(EnvSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, JsonSchemaProperty>;
  };
  const rows = (Object.keys(ENV_REFERENCE) as EnvName[]).map((name) => {
    const doc = ENV_REFERENCE[name];
    const property = schema.properties[name] ?? {};
    const fallback = doc.default ?? (property.default === undefined ? '—' : `\`${String(property.default)}\``);
    const more = doc.page ? ` ([more](${doc.page}))` : '';
    return `| \`${name}\` | ${fallback} | ${accepted(property)} | ${doc.what}${more} |`;
  });
  return `<!-- Generated by \`npm run docs:config\` from src/config.ts and src/config-reference.ts;
test/docs/docs.test.ts fails when it is stale. Do not edit by hand. -->

# Configuration

Everything is set by environment variables, read once at start-up and checked (\`src/config.ts\`). A mistake stops the
process at once with exit code 1 and a line naming the variable. An empty value counts as unset. With none set you get
the embedded default: SQLite in \`./data\`, jobs and batches in the API process, local sign-in for browsers on this
machine.

| variable | default | accepted | what it does |
|---|---|---|---|
${rows.join('\n')}

Rules across variables (each refused at start-up with its reason):

- \`GOOGLE_CLIENT_ID\` and \`GOOGLE_CLIENT_SECRET\` are set together, as are the two \`MICROSOFT_\` ones; with either
  provider, \`SESSION_SECRET\` and \`PUBLIC_URL\` are required.
- \`REDIS_URL\` is a \`redis://\` or \`rediss://\` URL; \`REDIS_CLUSTER_NODES\` replaces it for a Redis Cluster (never
  both); \`MONGODB_URL\` needs one of them as well (metering and jobs run on Redis).
- \`STRIPE_SECRET_KEY\` and \`STRIPE_WEBHOOK_SECRET\` are set together, and need \`PUBLIC_URL\`.
`;
}
