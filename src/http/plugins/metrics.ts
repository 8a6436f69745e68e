// Prometheus metrics (prom-client) on a registry of this app's own: requests, render latency, pool, quota, caches.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { QR_TYPES } from '../../domain/content/types.js';
import { OUTPUT_FORMATS } from '../../domain/plan-catalogue.js';
import type { RenderPipelineStats } from '../../adapters/contract.js';
import type { DecodeQueueStats } from '../../domain/ports/qr-decoder.js';

export interface AppMetrics {
  registry: Registry;
  renderDuration: Histogram<'format' | 'outcome'>;
  quotaRejections: Counter<'reason'>;
  cacheRequests: Counter<'cache' | 'result'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: AppMetrics;
  }
}

export interface MetricsOptions {
  renderStats: () => RenderPipelineStats;
  /** Images being decoded and waiting (POST …/decode, the playground). */
  decodeStats?: () => DecodeQueueStats;
  /** Scans answered but not recorded since start (the scan store was down or full). */
  unrecordedScans?: () => number;
  /** Uploads (bodies over 64 KiB or chunked) holding a slot now, in this process. */
  uploadsInFlight?: () => number;
  /** When set, /metrics wants `Authorization: Bearer <token>`. */
  token: string | undefined;
}

// Label values come from closed lists, so a caller cannot blow up the series count with junk.
const KNOWN_TYPES = new Set<string>(QR_TYPES);
const KNOWN_FORMATS = new Set<string>(OUTPUT_FORMATS);
const QUOTA_CODES = new Set(['quota_exceeded', 'qr_quota_exceeded', 'rate_limited']);

function bodyLabel(body: unknown, field: string, known: Set<string>): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  if (value === undefined) return 'none';
  return typeof value === 'string' && known.has(value) ? value : 'other';
}

async function metrics(app: FastifyInstance, options: MetricsOptions): Promise<void> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'qrm_http_requests_total',
    help: 'HTTP requests answered, by route, method, status, QR type and output format',
    labelNames: ['route', 'method', 'status', 'type', 'format'] as const,
    registers,
  });
  const renderDuration = new Histogram({
    name: 'qrm_render_duration_seconds',
    help: 'Time to render one image (queue wait included), by format and outcome',
    labelNames: ['format', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const quotaRejections = new Counter({
    name: 'qrm_quota_rejections_total',
    help: 'Requests refused for quota or rate limits, by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  const cacheRequests = new Counter({
    name: 'qrm_cache_requests_total',
    help: 'Cache look-ups by cache and result (hit or miss)',
    labelNames: ['cache', 'result'] as const,
    registers,
  });
  new Gauge({
    name: 'qrm_render_pool_threads',
    help: 'Render threads running',
    registers,
    collect() {
      this.set(options.renderStats().pool.threads);
    },
  });
  new Gauge({
    name: 'qrm_render_pool_queue_depth',
    help: 'Renders waiting for a thread',
    registers,
    collect() {
      this.set(options.renderStats().pool.queueSize);
    },
  });
  new Gauge({
    name: 'qrm_render_pool_utilization',
    help: 'Share of render-thread time spent rendering, 0..1',
    registers,
    collect() {
      this.set(options.renderStats().pool.utilization);
    },
  });

  new Gauge({
    name: 'qrm_render_admission_units',
    help: 'Render work admitted, in units of one 512 px image (2048 px: 16), by state (running or queued)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const { running, queued } = options.renderStats().admission;
      this.set({ state: 'running' }, running);
      this.set({ state: 'queued' }, queued);
    },
  });

  new Gauge({
    name: 'qrm_decode_images',
    help: "Uploaded images being decoded (running) or waiting their account's turn (waiting)",
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = options.decodeStats?.();
      this.set({ state: 'running' }, stats?.running ?? 0);
      this.set({ state: 'waiting' }, stats?.waiting ?? 0);
    },
  });

  new Gauge({
    name: 'qrm_uploads_in_flight',
    help: 'Uploads (request bodies over 64 KiB or chunked) admitted and not yet answered, in this process',
    registers,
    collect() {
      this.set(options.uploadsInFlight?.() ?? 0);
    },
  });

  let reportedUnrecorded = 0;
  new Counter({
    name: 'qrm_scans_unrecorded_total',
    help: 'Dynamic-code scans redirected but not counted (scan store down or full)',
    registers,
    collect() {
      const total = options.unrecordedScans?.() ?? 0;
      if (total > reportedUnrecorded) this.inc(total - reportedUnrecorded);
      reportedUnrecorded = total;
    },
  });

  app.decorate('metrics', { registry, renderDuration, quotaRejections, cacheRequests });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return done();
    requests.inc({
      route,
      method: request.method,
      status: String(reply.statusCode),
      type: bodyLabel(request.body, 'type', KNOWN_TYPES),
      format: bodyLabel(request.body, 'outputFormat', KNOWN_FORMATS),
    });
    if (request.problemCode && QUOTA_CODES.has(request.problemCode))
      quotaRejections.inc({ reason: request.problemCode });
    done();
  });

  // Digests of equal length, compared in constant time: the answer's timing says nothing about how much of the token
  // matched.
  const expected = options.token ? createHash('sha256').update(`Bearer ${options.token}`).digest() : undefined;
  const authorized = (header: string | undefined) =>
    expected === undefined ||
    timingSafeEqual(
      createHash('sha256')
        .update(header ?? '')
        .digest(),
      expected,
    );

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!authorized(request.headers.authorization)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer').type('text/plain').send('metrics token required\n');
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

export default fp(metrics, { name: 'metrics' });
