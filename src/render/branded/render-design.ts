// Renders a branded spec: picks the error correction the logo needs, draws the design, and lets it out only if it
// scans.
import {
  designKey,
  largestLogoScale,
  LOGO_SCALE_LIMITS,
  logoFits,
  logoPng,
  type Branding,
} from '../../domain/branding.js';
import { levelForLogo, levelsForLogo } from '../logo-level.js';
import { isPrintFormat } from '../../domain/print.js';
import { parseColour } from '../../domain/render-options.js';
import { withWebpDensity } from '../webp-density.js';
import { writeEps, type EpsLogo } from '../vector/eps-writer.js';
import { writePdfAsync } from '../vector/pdf-writer.js';
import { brandedArt, printLayout } from '../vector/print-art.js';
import { ERROR_CORRECTION_LEVELS, type ErrorCorrectionLevel, type RenderSpec } from '../../domain/render-options.js';
import type { RenderedImage } from '../../domain/rendered-image.js';
import {
  BYTE_CAPACITY,
  buildMatrix,
  drawnSymbol,
  PayloadTooLongError,
  plannedSymbol,
  type QrMatrix,
} from '../qr-matrix.js';
import type { DesignCaches } from './design-caches.js';
import { designLayout, type DesignLayout } from './design-layout.js';
import { designArt } from './design-raster.js';
import { writeDeflatedDesignPng } from './design-png.js';
import { writeDesignSvg } from './design-svg.js';
import { DrawnRaster } from './drawn-raster.js';
import { decodesTo, type ZbarReader } from './scan-check.js';
import { noteCheck, readableAtAll, sharedVerdict, verdictKeys, type VerdictKeys } from './shared-verdict.js';
import { loadSharp } from '../imaging-libraries.js';

/**
 * sharp's lossless WebP at effort 1: the smallest-cost setting; branded images are full colour, beyond the plain path's
 * two-colour VP8L writer.
 */
const BRANDED_WEBP_EFFORT = 1;

/** A design that would not scan, with what to change; crosses threads as data (see render-task.ts). */
export class UnscannableDesignError extends Error {
  constructor(
    message: string,
    readonly changes: string[],
    readonly maxLogoScale?: number,
  ) {
    super(message);
  }
}

/**
 * The matrix at the level levelForLogo picks from the requested one up (the lowest that holds the logo with spare
 * correction in every block, else the lowest that holds it); with a caller-fixed level, that level or a refusal
 * naming the largest scale that fits.
 */
export function matrixForDesign(
  spec: RenderSpec,
  branding: Branding,
  caches?: DesignCaches,
): { matrix: QrMatrix; errorCorrection: ErrorCorrectionLevel } {
  const logo = branding.logo;
  const options = { eci: spec.eci === true }; // as the plain path: the ECI designator when the caller asked for it
  if (!logo)
    return { matrix: buildMatrix(spec.payload, spec.errorCorrection, options), errorCorrection: spec.errorCorrection };
  const levels = levelsForLogo(spec.errorCorrection, branding.errorCorrectionFixed);
  // Each level's symbol size comes from its plan alone: only the chosen level's matrix is drawn (drawing is most of a
  // matrix's cost).
  const rule =
    caches && ((size: number, level: ErrorCorrectionLevel) => caches.logoLeavesSpare(size, level, logo.scale));
  const chosen = levelForLogo(levels, logo.scale, (level) => plannedSymbol(spec.payload, level, options), rule);
  if ('symbol' in chosen) return { matrix: chosen.symbol.draw(), errorCorrection: chosen.level };
  if ('tooLong' in chosen) throw new PayloadTooLongError(BYTE_CAPACITY[chosen.tooLong]); // as buildMatrix refuses it
  const size = chosen.fitsNone;
  const level = levels[levels.length - 1]!;
  const max = largestLogoScale(size, level);
  const fits =
    max === undefined ? 'no logo fits this code at that level' : `the largest logo.scale that fits is ${max}`;
  const changes = [max === undefined ? 'remove the logo' : `set logo.scale to at most ${max}`];
  // Named only when a higher level does hold the logo: a change the answer names must not be refused in turn.
  const higher = ERROR_CORRECTION_LEVELS.slice(ERROR_CORRECTION_LEVELS.indexOf(level) + 1);
  const fitsHigher = higher.some((up) => {
    const planned = plannedSymbol(spec.payload, up, options);
    return planned !== undefined && logoFits(planned.size, logo.scale, up);
  });
  if (branding.errorCorrectionFixed && fitsHigher)
    changes.push('raise errorCorrection (or leave it out, and it is chosen for the logo)');
  throw new UnscannableDesignError(
    `a logo at scale ${logo.scale} covers more of this code than error correction ${level} can restore; ${fits}`,
    changes,
    max,
  );
}

/** One change to a design that fails its check: what the answer says, and the design with it made. */
interface DesignChange {
  change: string;
  spec: RenderSpec;
  branding: Branding;
  /** Set when the change is a smaller logo: the scale the answer gives as `maxLogoScale`. */
  logoScale?: number;
}

/**
 * How many changes a failed design is drawn and checked with before the refusal names one: each is a render and a
 * check.
 */
const CHANGES_TRIED = 3;
/** A smaller logo is tried this much smaller: one step of the scales the reader corpus covers. */
const LOGO_SCALE_STEP = 0.05;

/** The changes worth trying on a design that failed its check, likeliest to pass while keeping its look first. */
function candidateChanges(spec: RenderSpec, branding: Branding): DesignChange[] {
  const changes: DesignChange[] = [];
  if (spec.margin < 2)
    changes.push({
      change: 'a margin of at least 2 (the quiet zone scanners look for)',
      spec: { ...spec, margin: 2 },
      branding,
    });
  const logo = branding.logo;
  const smaller = logo && Math.round((logo.scale - LOGO_SCALE_STEP) * 100) / 100;
  if (logo && smaller! >= LOGO_SCALE_LIMITS.min)
    changes.push({
      change: `set logo.scale to at most ${smaller}`,
      spec,
      branding: { ...branding, logo: { ...logo, scale: smaller! } },
      logoScale: smaller,
    });
  if (spec.errorCorrection !== 'H')
    changes.push({
      change: 'errorCorrection "H"',
      spec: { ...spec, errorCorrection: 'H' },
      branding: { ...branding, errorCorrectionFixed: true },
    });
  if (branding.finderShape !== 'square')
    changes.push({ change: 'finderShape "square"', spec, branding: { ...branding, finderShape: 'square' } });
  if (branding.moduleShape !== 'square')
    changes.push({ change: 'moduleShape "square"', spec, branding: { ...branding, moduleShape: 'square' } });
  return changes.slice(0, CHANGES_TRIED);
}

/** The scales an SVG design is read at: its own size, as a page shows it, and twice that, as a print rasterises it. */
const SVG_CHECKED_SCALES = [1, 2];

/**
 * Whether the SVG, as librsvg (sharp's SVG loader) draws it at each checked scale, reads back the payload on all three.
 */
async function svgReads(zbar: ZbarReader, svg: Uint8Array, payload: string): Promise<boolean> {
  for (const scale of SVG_CHECKED_SCALES) {
    const { data, info } = await loadSharp()(svg, { density: 72 * scale })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (!(await decodesTo(zbar, { rgba: data, width: info.width, height: info.height }, payload))) return false;
  }
  return true;
}

/** Whether a design as it leaves the service reads back: the raster, or the SVG as librsvg draws it. */
async function designReads(
  kind: VerdictKind,
  spec: RenderSpec,
  branding: Branding,
  matrix: QrMatrix,
  layout: DesignLayout,
  caches: DesignCaches,
): Promise<boolean> {
  if (kind === 'svg')
    return svgReads(caches.zbar, Buffer.from(writeDesignSvg(spec, branding, matrix, layout)), spec.payload);
  const drawn = new DrawnRaster(spec, branding, matrix, layout, caches);
  try {
    return await drawn.readsBack();
  } finally {
    drawn.release();
  }
}

/**
 * The first of the candidate changes with which the design reads on all three decoders, drawn and checked as a
 * request with that change would be (its verdict kept, so asking again with it is a lookup); undefined when none does.
 */
async function passingChange(
  kind: VerdictKind,
  spec: RenderSpec,
  branding: Branding,
  caches: DesignCaches,
): Promise<DesignChange | undefined> {
  for (const candidate of candidateChanges(spec, branding)) {
    let matrix: QrMatrix;
    let errorCorrection: ErrorCorrectionLevel;
    let layout: DesignLayout;
    try {
      ({ matrix, errorCorrection } = matrixForDesign(candidate.spec, candidate.branding, caches));
      layout = designLayout(matrix, candidate.spec.size, candidate.spec.margin, candidate.branding);
    } catch {
      continue; // the change cannot be drawn at all (a logo that does not fit, a size too small for the margin)
    }
    const keys = verdictKeys(
      kind,
      candidate.spec,
      matrix.size,
      errorCorrection,
      candidate.branding,
      designKey(candidate.branding),
      layout.cleared,
    );
    let verdict = caches.verdicts.get(keys.image);
    if (verdict === undefined) {
      verdict = await designReads(
        kind,
        { ...candidate.spec, errorCorrection },
        candidate.branding,
        matrix,
        layout,
        caches,
      );
      caches.scanCounts.decoded++;
      caches.verdicts.set(keys.image, verdict);
    }
    if (verdict) return candidate;
  }
  return undefined;
}

/** What to try when a design fails its scan check and no change tried passed, from the design's own choices. */
function suggestedChanges(spec: RenderSpec, branding: Branding, layout: DesignLayout): string[] {
  const changes: string[] = [];
  if (branding.logo) changes.push('a smaller logo.scale');
  if (branding.moduleShape === 'dots') changes.push('moduleShape "rounded" or "square"');
  if (branding.finderShape !== 'square') changes.push('finderShape "square"');
  if (layout.scale < 4) changes.push(`a larger size (modules are ${layout.scale} px wide)`);
  if (branding.frame && spec.margin < 2) changes.push('a margin of at least 2 between the code and the caption band');
  else if (spec.margin < 2) changes.push('a margin of at least 2 (the quiet zone scanners look for)');
  if (spec.errorCorrection !== 'H') changes.push('errorCorrection "H"');
  return changes;
}

/** What a verdict is of: a raster (PNG and WebP, the same pixels) or an SVG. */
type VerdictKind = 'raster' | 'svg';

/** Refuses the design unless its raster reads back on all three decoders (or a verdict already says so). */
function assertRasterScans(
  drawn: DrawnRaster,
  errorCorrection: ErrorCorrectionLevel,
  caches: DesignCaches,
  explain: boolean,
): Promise<void> {
  const { spec, branding, matrix, layout, design } = drawn;
  const keys = verdictKeys('raster', spec, matrix.size, errorCorrection, branding, design, layout.cleared);
  return assertScans(caches, keys, spec, branding, layout, () => drawn.readsBack(), 'raster', explain);
}

async function assertScans(
  caches: DesignCaches,
  keys: VerdictKeys,
  spec: RenderSpec,
  branding: Branding,
  layout: DesignLayout,
  reads: () => Promise<boolean>,
  kind: VerdictKind,
  explain: boolean,
): Promise<void> {
  let verdict = caches.verdicts.get(keys.image);
  if (verdict === undefined && sharedVerdict(caches, keys, spec.payload)) {
    caches.scanCounts.shared++;
    return;
  }
  if (verdict === undefined) {
    await caches.decoderReady();
    verdict = await reads();
    caches.scanCounts.decoded++;
    caches.verdicts.set(keys.image, verdict);
    noteCheck(caches, keys, verdict);
  }
  if (!verdict) {
    const passing =
      explain && readableAtAll(spec.payload) ? await passingChange(kind, spec, branding, caches) : undefined;
    if (passing) {
      const detail = `this design does not scan reliably; with ${passing.change} it does (drawn and read back)`;
      throw new UnscannableDesignError(detail, [passing.change], passing.logoScale);
    }
    const changes = suggestedChanges(spec, branding, layout);
    throw new UnscannableDesignError(`this design does not scan reliably; try ${changes.join(', or ')}`, changes);
  }
}

/**
 * The design drawn and checked. With the level left open, a design that fails its check is drawn again a level up
 * (to H) before it is refused: more correction lets readers through what the shapes or the logo cost them.
 */
export async function renderDesign(spec: RenderSpec, branding: Branding, caches: DesignCaches): Promise<Uint8Array> {
  return (await drawDesign(spec, branding, caches)).bytes;
}

/** renderDesign's image with the symbol it carries: the version and the level it passed its check at. */
export async function drawDesign(spec: RenderSpec, branding: Branding, caches: DesignCaches): Promise<RenderedImage> {
  const fixed = branding.errorCorrectionFixed || !readableAtAll(spec.payload);
  let attempt = spec;
  let last = fixed;
  for (;;) {
    const { matrix, errorCorrection } = matrixForDesign(attempt, branding, caches);
    const higher = ERROR_CORRECTION_LEVELS[ERROR_CORRECTION_LEVELS.indexOf(errorCorrection) + 1];
    try {
      const bytes = await renderMatrix(
        attempt,
        branding,
        caches,
        matrix,
        errorCorrection,
        last || higher === undefined,
      );
      return { bytes, symbol: drawnSymbol(matrix, errorCorrection) };
    } catch (error) {
      if (!(error instanceof UnscannableDesignError) || last || higher === undefined) throw error;
      const raised = { ...attempt, errorCorrection: higher };
      // A level up that no longer fits the size: this level's refusal, now naming a change that passes (its verdict is
      // kept).
      if (drawableAt(raised, branding, caches)) attempt = raised;
      else last = true;
    }
  }
}

/**
 * Whether the design can be drawn at the spec's level (its logo fits, its modules get their pixels), without drawing
 * it.
 */
function drawableAt(spec: RenderSpec, branding: Branding, caches: DesignCaches): boolean {
  try {
    const { matrix } = matrixForDesign(spec, branding, caches);
    designLayout(matrix, spec.size, spec.margin, branding);
    return true;
  } catch {
    return false;
  }
}

/**
 * One drawing of the design at its level; `explain`: a failed check names a change that passes (else it is retried).
 */
async function renderMatrix(
  spec: RenderSpec,
  branding: Branding,
  caches: DesignCaches,
  matrix: QrMatrix,
  errorCorrection: ErrorCorrectionLevel,
  explain: boolean,
): Promise<Uint8Array> {
  if (isPrintFormat(spec.format)) return renderPrintDesign(spec, branding, matrix, errorCorrection, caches, explain);
  const layout = designLayout(matrix, spec.size, spec.margin, branding);
  const design = designKey(branding);

  if (spec.format === 'svg') {
    const svg = Buffer.from(writeDesignSvg(spec, branding, matrix, layout));
    const keys = verdictKeys('svg', spec, matrix.size, errorCorrection, branding, design, layout.cleared);
    await assertScans(
      caches,
      keys,
      spec,
      branding,
      layout,
      () => svgReads(caches.zbar, svg, spec.payload),
      'svg',
      explain,
    );
    return svg;
  }
  // Drawn only when something needs the pixels, the scan check or WebP, and then once for both.
  const drawn = new DrawnRaster(spec, branding, matrix, layout, caches, design);
  try {
    await assertRasterScans(drawn, errorCorrection, caches, explain);
    if (spec.format === 'png') {
      const art = await designArt(spec, branding, design, layout, caches);
      const kept = art.rowCodes?.kept.bytes;
      const png = writeDeflatedDesignPng(art, matrix, layout, spec.size, spec.dpi);
      if (art.rowCodes?.kept.bytes !== kept) caches.remeasureArt(art);
      return png;
    }
    const { rgba, width, height } = await drawn.image();
    const webp = await loadSharp()(rgba, { raw: { width, height, channels: 4 } })
      .webp({ lossless: true, effort: BRANDED_WEBP_EFFORT })
      .toBuffer();
    return withWebpDensity(webp, spec.dpi);
  } finally {
    drawn.release();
  }
}

/**
 * PDF and EPS draw the same shapes as vectors from the raster's layout at UNITS_PER_MODULE units a module; the scan
 * check reads that raster (the same geometry at 8 px a module), with the verdict a PNG of that size would get.
 */
async function renderPrintDesign(
  spec: RenderSpec,
  branding: Branding,
  matrix: QrMatrix,
  errorCorrection: ErrorCorrectionLevel,
  caches: DesignCaches,
  explain: boolean,
): Promise<Uint8Array> {
  const layout = printLayout(spec, matrix, branding);
  const raster = { ...spec, format: 'png' as const, size: layout.side };
  const drawn = new DrawnRaster(raster, branding, matrix, layout, caches);
  try {
    await assertRasterScans(drawn, errorCorrection, caches, explain);
  } finally {
    drawn.release();
  }
  const art = brandedArt(spec, branding, matrix, layout);
  if (spec.format === 'pdf') return writePdfAsync(art);
  return writeEps(art, branding.logo ? await epsLogo(logoPng(branding.logo), spec.lightColor) : undefined);
}

/**
 * The logo as RGB rows composited onto the light colour (it sits on the light cleared square; PostScript has no
 * transparency).
 */
async function epsLogo(png: Uint8Array, lightColor: string): Promise<EpsLogo> {
  const { r, g, b } = parseColour(lightColor);
  const { data, info } = await loadSharp()(png)
    .flatten({ background: { r, g, b } })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgb: data };
}
