// When one scan verdict may stand for a design's new payloads: the image's and its design class's keys, the class
// rules, and the record of its checks.
import { createHash } from 'node:crypto';
import type { Branding } from '../../domain/branding.js';
import type { ErrorCorrectionLevel, RenderSpec } from '../../domain/render-options.js';
import { logoLeavesSpare } from '../logo-level.js';
import type { DesignCaches } from './design-caches.js';
import type { DesignLayout } from './design-layout.js';

/** The keys of one image's scan verdict: its own, and its design class's (see verdictKeys). */
export interface VerdictKeys {
  image: string;
  designClass: string;
  /** Whether the class may share a verdict at all (its finders, and the logo rule), computed once per class. */
  eligible: (caches: DesignCaches) => boolean;
}

/**
 * Distinct payloads of a class that must each read back exactly on both decoders before the class's verdict stands
 * for a payload not yet seen. One would already show the layout reads (finders, alignment patterns, shapes,
 * colours, the logo's square: the same pixels for every payload); three make a data-dependent failure that the logo
 * rule does not cover (a shape misread for some data patterns) show up before the verdict is shared.
 * test/measure/shared-verdict.ts measures what the rule lets through on ZXing, zbar and jsQR.
 */
export const SHARED_VERDICT_PASSES = 3;

/**
 * Circle finders never share a verdict: a finder is found by the run lengths of the scan lines crossing it, and a
 * round ring's runs are marginal enough that the data modules beside it decide whether some readers find it. The
 * evidence run (test/measure/shared-verdict.ts, docs/scan-guarantee.md) missed 8 of 2,829 shared images, every one
 * with circle finders (zbar 7, jsQR 1); square and rounded finders missed none.
 */
function finderShapeShares(branding: Branding): boolean {
  return branding.finderShape !== 'circle';
}

/**
 * Logos above 0.25 never share a verdict: the reader corpus (the guarantee's reach in npm test) goes up to 0.25, and
 * above it zbar misses whole designs whose every payload both in-process decoders read (a logo at 0.29, `rounded`,
 * 512 px WebP at Q: zbar read none of its payloads). Evidence run 3 (docs/scan-guarantee.md) let 6 such images out
 * on a shared verdict, all of that design; checked per payload, a failure the in-process decoders do see is
 * still caught.
 */
export const SHARED_LOGO_SCALE_MAX = 0.25;

/** Whether a class may share its verdict at all: its finders, its logo's scale, and the logo rule (logoLeavesSpare). */
function classMayShare(
  caches: DesignCaches,
  branding: Branding,
  matrixSize: number,
  errorCorrection: ErrorCorrectionLevel,
  cleared: DesignLayout['cleared'],
): boolean {
  if (!finderShapeShares(branding) || (branding.logo?.scale ?? 0) > SHARED_LOGO_SCALE_MAX) return false;
  return logoLeavesSpare(matrixSize, errorCorrection, cleared, caches.codewordPlacement((matrixSize - 17) / 4));
}

/**
 * The class's verdict, when it stands for a payload of its own that has not been checked: established and never
 * failed, and the payload is text a reader can give back at all (a lone surrogate is written as U+FFFD, so it can never
 * read back exactly: its own check refuses it, as before).
 */
export function sharedVerdict(caches: DesignCaches, keys: VerdictKeys, payload: string): boolean {
  const known = caches.classes.get(keys.designClass);
  const established =
    known !== undefined && known.eligible && !known.failed && known.passed.size >= SHARED_VERDICT_PASSES;
  return established && readableAtAll(payload);
}

/** Whether a reader can give the payload back at all: text with a lone surrogate is written as U+FFFD, and never is. */
export function readableAtAll(payload: string): boolean {
  return Buffer.from(payload, 'utf8').toString('utf8') === payload;
}

/** A payload's own check, counted for its class: a pass towards the shared verdict, a failure against it for good. */
export function noteCheck(caches: DesignCaches, keys: VerdictKeys, passed: boolean): void {
  let known = caches.classes.get(keys.designClass);
  if (!known)
    caches.classes.set(
      keys.designClass,
      (known = { eligible: keys.eligible(caches), passed: new Set(), failed: false }),
    );
  if (!passed) known.failed = true;
  else if (known.passed.size < SHARED_VERDICT_PASSES) known.passed.add(keys.image);
}

/**
 * An image's own verdict is keyed by everything its pixels depend on — the payload (its modules), the level, size,
 * margin, colours and design (shapes, logo, caption) — and by the kind of output (raster, or SVG as librsvg draws
 * it). PNG and WebP share the raster's verdict: lossless, they are the same pixels.
 *
 * Its design class is the same key without the payload, with the symbol's side instead: every image of a class is
 * the same pixels but for the data modules (and the mask that flips them). A verdict per class alone would let a
 * payload out unchecked whose data breaks the design — long content with a logo at the largest scale
 * (docs/decisions/shared-scan-verdict.md) — because the logo takes nearly all of some block's correction, and whether
 * those codewords are read right depends on the data. So a class shares its verdict only when (1) its logo, read wrong
 * in every codeword it touches, still leaves every Reed–Solomon block spare correction (logoLeavesSpare: placement
 * and blocks depend on the version and level alone, so this holds for every payload of the class or none), and
 * (2) SHARED_VERDICT_PASSES distinct payloads of it have each been read back exactly by both decoders, none failing.
 * Otherwise every payload is checked; a class in which one fails stays checked per payload.
 * Hashed: the caches hold fixed-size keys however long the payloads are (a 3 kB payload is not kept 20,000 times).
 */
export function verdictKeys(
  kind: string,
  spec: RenderSpec,
  matrixSize: number,
  errorCorrection: ErrorCorrectionLevel,
  branding: Branding,
  /** designKey(branding), which the caller has already. */
  design: string,
  cleared: DesignLayout['cleared'],
): VerdictKeys {
  const pixels = [kind, errorCorrection, spec.size, spec.margin, spec.darkColor, spec.lightColor];
  return {
    image: createHash('sha256')
      .update(JSON.stringify([...pixels, spec.payload, spec.eci === true]))
      .update(design)
      .digest('base64'),
    designClass: createHash('sha256')
      .update(JSON.stringify([...pixels, matrixSize]))
      .update(design)
      .digest('base64'),
    eligible: (caches) => classMayShare(caches, branding, matrixSize, errorCorrection, cleared),
  };
}
