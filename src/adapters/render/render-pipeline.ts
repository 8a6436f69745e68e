// createRenderPipeline: the one place the renderer is built — image cache, admission, inline-or-pool routing, timing.
import { availableParallelism } from 'node:os';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import { ApiError } from '../../domain/errors.js';
import { PlanCatalogue } from '../../domain/plan-catalogue.js';
import type { RenderCaller, Renderer } from '../../domain/ports/renderer.js';
import { renderIdentity } from '../../domain/render-key.js';
import { renderCost } from '../../domain/render-cost.js';
import type { RenderedImage } from '../../domain/rendered-image.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { DesignCaches } from '../../render/branded/design-caches.js';
import { renderTask } from '../../render/render-task.js';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';
import type { RenderEvents, RenderPipelineStats } from '../contract.js';
import { AdmissionGate } from './admission-gate.js';
import { RenderBatcher } from './render-batcher.js';
import { assertDrawable as assertSpecDrawable, assertPrintable, imageOrError } from './render-outcome.js';
import { DEFAULT_MIN_MODULE_MM } from '../../domain/print.js';
import { RenderPool, type RenderPoolOptions } from './render-pool.piscina.js';

/** renderSmallOnPool may be left out: the default then follows the machine's cores (createRenderPipeline). */
export type RenderPipelineConfig = Pick<
  Config,
  'renderThreads' | 'renderMaxQueue' | 'renderInlineMaxPixels' | 'imageCacheBytes'
> &
  Partial<Pick<Config, 'renderSmallOnPool' | 'printMinModuleMm'>>;

export interface RenderPipelineDeps {
  log?: AdapterLog;
  /** Pool settings a test needs (a crashing thread entry, a small heap); production takes them from config. */
  pool?: Pick<RenderPoolOptions, 'filename' | 'maxOldGenerationSizeMb'>;
  /** The configured plans (QR_PLANS_FILE), which say whose share is a paying account's; default: the built-in ones. */
  plans?: PlanCatalogue;
}

/** What the pipeline tells its listener (the app's metrics). */
const LARGEST_COST = renderCost({ format: 'png', size: 2048 });
/** Payloads past this reach versions whose matrix alone costs more than the thread hop. */
const INLINE_MAX_PAYLOAD_BYTES = 600;
/**
 * A branded render costs several times a plain one (anti-aliased shapes, a logo, the scan check): only the smaller ones
 * stay on the event loop.
 */
const BRANDED_PIXEL_SHARE = 4;

/** Start-up checked every account's plan; a caller on an unknown one (a test's made-up caller) is taken as free. */
function paying(plans: PlanCatalogue, caller: RenderCaller): boolean {
  return plans.has(caller.plan) && plans.get(caller.plan).monthlyPriceUsd > 0;
}

/**
 * A free account may hold a quarter of the instance's render capacity, a paying one half: enough for a burst, never all
 * of it.
 */
function accountShare(plans: PlanCatalogue, caller: RenderCaller): number {
  return paying(plans, caller) ? 0.5 : 0.25;
}

/**
 * Of the work running at once, a free account may run half, a paying one three quarters (at least one render of any
 * size): big renders from one account leave the rest of the threads to everyone else's small ones.
 */
function accountRunningShare(plans: PlanCatalogue, caller: RenderCaller): number {
  return paying(plans, caller) ? 0.75 : 0.5;
}

const NO_EVENTS: RenderEvents = { rendered: () => {}, cache: () => {} };

/**
 * Cache first (a repeated code costs no admission), then admission, then the render where #draw says:
 * large ones on the pool, small ones grouped onto a free thread or inline (bench rows e and c).
 */
export class RenderPipeline implements Renderer {
  readonly #gate: AdmissionGate;
  readonly #pool: RenderPool;
  /** Batch groups handed to the pool and not answered yet (running or queued). */
  #groupsInPool = 0;
  readonly #cache: LRUCache<string, RenderedImage> | undefined;
  readonly #inlineMaxPixels: number;
  /** Which small renders go to a free thread in groups (renderSmallOnPool); set unless none do. */
  readonly #smallOnPool: SmallOnPool;
  readonly #batcher: RenderBatcher | undefined;
  /** Branded designs' tiles, logos and scan verdicts for the renders done inline on this thread. */
  readonly #designs = new DesignCaches();
  /** PRINT_MIN_MODULE_MM: a sizeMm whose modules would print narrower is refused. */
  readonly #minModuleMm: number;
  #events: RenderEvents = NO_EVENTS;

  constructor(
    pool: RenderPool,
    gate: AdmissionGate,
    options: { inlineMaxPixels: number; cacheBytes: number; smallOnPool: SmallOnPool; minModuleMm?: number },
  ) {
    this.#minModuleMm = options.minModuleMm ?? DEFAULT_MIN_MODULE_MM;
    this.#pool = pool;
    this.#gate = gate;
    this.#inlineMaxPixels = options.inlineMaxPixels;
    this.#smallOnPool = options.smallOnPool;
    this.#batcher = options.smallOnPool === 'none' ? undefined : new RenderBatcher(pool);
    this.#cache =
      options.cacheBytes > 0
        ? new LRUCache({ maxSize: options.cacheBytes, sizeCalculation: (image) => Math.max(1, image.bytes.byteLength) })
        : undefined;
  }

  /** One listener (the app's metrics); the app that set it clears it on close. */
  listen(events: RenderEvents | undefined): void {
    this.#events = events ?? NO_EVENTS;
  }

  assertDrawable(spec: RenderSpec): void {
    assertPrintable(spec, this.#minModuleMm, this.#designs);
    assertSpecDrawable(spec);
  }

  async render(spec: RenderSpec, caller: RenderCaller): Promise<RenderedImage> {
    const key = this.#cache ? renderIdentity(spec) : '';
    const cached = this.#cache?.get(key);
    if (cached) {
      this.#events.cache('hit');
      return cached;
    }
    if (this.#cache) this.#events.cache('miss');
    const image = await this.#gate.run(caller, renderCost(spec), () => this.#draw(spec));
    this.#cache?.set(key, image);
    return image;
  }

  /**
   * A group of batch items as one pool task, admitted as their summed cost: one thread hop for the group.
   * Each item gets its bytes or its refusal; overload and a lost thread reject the whole group (retried by the runner).
   */
  async renderManyOnPool(
    specs: RenderSpec[],
    caller: RenderCaller,
    files?: string[],
  ): Promise<Array<Uint8Array | 'stored' | ApiError>> {
    const cost = specs.reduce((sum, spec) => sum + renderCost(spec), 0);
    return this.#gate.run(
      caller,
      cost,
      async () => {
        const started = process.hrtime.bigint();
        this.#groupsInPool++;
        let results: Array<Uint8Array | 'stored' | ApiError>;
        try {
          const outcomes = await this.#pool.renderMany(specs, files);
          results = outcomes.map((outcome) =>
            outcome === 'stored' || outcome instanceof ApiError ? outcome : outcome.bytes,
          );
        } finally {
          this.#groupsInPool--;
        }
        const seconds = Number(process.hrtime.bigint() - started) / 1e9 / Math.max(1, specs.length);
        results.forEach((result, i) =>
          this.#events.rendered(specs[i]!.format, seconds, result instanceof ApiError ? 'rejected' : 'ok'),
        );
        return results;
      },
      // A batch already steps back for synchronous renders (its runner's turn), and alone on a render process it should
      // have every thread: its groups are held to the account's share of the queue, not of the running work.
      { shareRunning: false },
    );
  }

  /** A one-module render on the pool itself, so a thread must answer: readiness of the render path. */
  async probe(): Promise<void> {
    await this.#pool.render({
      payload: 'ready',
      format: 'svg',
      size: 64,
      margin: 0,
      errorCorrection: 'L',
      darkColor: '#000000ff',
      lightColor: '#ffffffff',
    });
  }

  /**
   * Renders queued for a pool thread other than batch groups: at most the queue less the groups that cannot be
   * running (more groups in the pool than threads). A batch steps back for these, never for its own groups.
   */
  othersQueued(): number {
    return Math.max(0, this.#pool.queueSize() - Math.max(0, this.#groupsInPool - this.#pool.threads));
  }

  stats(): RenderPipelineStats {
    return { pool: this.#pool.stats(), admission: this.#gate.stats() };
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  /**
   * One admitted render, timed for the metrics, drawn where it costs least. Large images and long payloads
   * (past RENDER_INLINE_MAX_PIXELS, a quarter of it when branded, or INLINE_MAX_PAYLOAD_BYTES) go to the pool,
   * one task each. Small ones go to a free thread in the turn's group when renderSmallOnPool names them (branded
   * ones by default, each thread keeping its own design caches: docs/decisions/branded-on-pool.md); the others, and
   * all while every thread is busy (say with a flood of large renders), are drawn inline on the event loop.
   */
  async #draw(spec: RenderSpec): Promise<RenderedImage> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const pixels = spec.branding ? this.#inlineMaxPixels / BRANDED_PIXEL_SHARE : this.#inlineMaxPixels;
    const small = spec.size * spec.size <= pixels && spec.payload.length <= INLINE_MAX_PAYLOAD_BYTES;
    try {
      let image: RenderedImage;
      if (!small) image = await this.#pool.render(spec);
      else if (this.#batcher && this.#grouped(spec) && !this.#pool.allThreadsBusy())
        image = await this.#batcher.render(spec);
      else image = imageOrError(await renderTask(spec, this.#designs), spec);
      this.#events.rendered(spec.format, seconds(), 'ok');
      return image;
    } catch (error) {
      // ApiErrors are refusals (too long, too small); anything else is a render that broke.
      this.#events.rendered(spec.format, seconds(), error instanceof ApiError ? 'rejected' : 'failed');
      throw error;
    }
  }

  /** Whether a small render joins the turn's group on a free thread rather than being drawn on the event loop. */
  #grouped(spec: RenderSpec): boolean {
    return this.#smallOnPool === 'all' || (this.#smallOnPool === 'branded' && spec.branding !== undefined);
  }
}

/**
 * Which small renders cross to a free thread: `branded` ones only (shapes, logo and scan check cost several plain
 * renders), `all`, or `none` (every small render on the event loop). Bench rows h-branded-thread / h-branded-inline and
 * c-thread / c-inline weigh the hop: docs/decisions/render-batcher-turn-groups.md.
 */
export type SmallOnPool = NonNullable<Config['renderSmallOnPool']>;

/** The whole render pipeline for this process, from config: what the app, the bench and the tests all run. */
export function createRenderPipeline(config: RenderPipelineConfig, deps: RenderPipelineDeps = {}): RenderPipeline {
  const log = deps.log ?? SILENT_LOG;
  const threads = config.renderThreads ?? Math.max(1, availableParallelism());
  // Running work: one largest render per thread (or as many smaller ones). Waiting work: RENDER_MAX_QUEUE units,
  // by default 1,024 a thread, a few hundred milliseconds of rendering (a unit is 0.1-0.3 ms of a thread).
  const running = threads * LARGEST_COST;
  const queued = config.renderMaxQueue ?? threads * 1024;
  const pool = new RenderPool({
    ...deps.pool,
    threads,
    // The gate bounds what reaches the pool; Piscina's own queue only has to hold what the gate lets run.
    maxQueue: running,
    onThreadError: (err) => log.warn({ err }, 'a render thread died outside a task; the pool replaces it'),
  });
  const plans = deps.plans ?? PlanCatalogue.builtIn();
  const gate = new AdmissionGate({
    running,
    queued,
    accountShare: (caller) => accountShare(plans, caller),
    accountRunningShare: (caller) => accountRunningShare(plans, caller),
  });
  return new RenderPipeline(pool, gate, {
    inlineMaxPixels: config.renderInlineMaxPixels,
    cacheBytes: config.imageCacheBytes,
    // Unset: branded ones only, and only with a core to spare for the threads; on one core the hop only adds work.
    smallOnPool: config.renderSmallOnPool ?? (availableParallelism() > 1 ? 'branded' : 'none'),
    minModuleMm: config.printMinModuleMm ?? DEFAULT_MIN_MODULE_MM,
  });
}
