// The one place a render's refusal becomes the ApiError its caller sees, wherever it was drawn (inline, on a thread, in
// a group).
import { ApiError } from '../../domain/errors.js';
import type { RenderedImage } from '../../domain/rendered-image.js';
import type { RenderSpec } from '../../domain/render-options.js';
import type { RenderRefusal, RenderTaskResult } from '../../render/render-task.js';
import { contentCapacity } from '../../render/content-capacity.js';
import type { DesignCaches } from '../../render/branded/design-caches.js';
import { drawnModules, symbolFit } from '../../render/symbol-fit.js';
import { modulesPrintable, SIZE_MM_LIMITS, smallestSizeMm } from '../../domain/print.js';
import { MIN_MODULE_PIXELS } from '../../domain/render-options.js';

/**
 * Every render ends in a RenderTaskResult (renderTask maps the writers' exceptions to data once, since class
 * identity does not survive the thread boundary); this maps the data, and nothing else maps errors.
 */
export function refusalError(refusal: RenderRefusal, spec: RenderSpec): ApiError {
  switch (refusal.reason) {
    case 'too_long': {
      // The limit of the content's own kind as the charset policy writes it, not the byte-mode figure of every kind.
      const { encoding, unit, limit, length, detail } = contentCapacity(
        spec.payload,
        spec.errorCorrection,
        spec.eci === true,
      );
      const lower = spec.errorCorrection === 'L' ? '' : '; a lower errorCorrection holds more';
      return new ApiError('content_too_long', `${detail}${lower}`, {
        extensions: { limit, length, unit, encoding, errorCorrection: spec.errorCorrection },
        fields: [
          {
            field: 'content',
            detail: `at most ${limit} ${unit} at error correction ${spec.errorCorrection} for this kind of content`,
          },
        ],
      });
    }
    case 'size_too_small':
      return new ApiError(
        'invalid_request',
        `size must be at least ${refusal.minimumSize} px for this content and margin`,
        {
          fields: [{ field: 'size', detail: `at least ${refusal.minimumSize} for this content and margin` }],
          extensions: { minimumSize: refusal.minimumSize },
        },
      );
    case 'unscannable':
      return new ApiError('unscannable_design', refusal.detail, {
        extensions: {
          changes: refusal.changes,
          ...(refusal.maxLogoScale === undefined ? {} : { maxLogoScale: refusal.maxLogoScale }),
        },
      });
  }
}

/** A render's image, or its refusal thrown. */
export function imageOrError(result: RenderTaskResult, spec: RenderSpec): RenderedImage {
  if (result.ok) return { bytes: result.bytes, symbol: result.symbol };
  throw refusalError(result, spec);
}

/** Refuses a spec no image can be drawn for, from its symbol's version alone (no matrix is built). */
export function assertDrawable(spec: RenderSpec): void {
  const fit = symbolFit(spec);
  if (!fit.ok) throw refusalError(fit, spec);
}

/**
 * A spec with a physical size whose modules would print narrower than `minModuleMm` (or, for a raster, get fewer than
 * MIN_MODULE_PIXELS whole pixels at its dpi): refused naming the smallest sizeMm that works. `caches`: where the
 * logo rule's codeword placement tables are kept between calls.
 */
export function assertPrintable(
  spec: RenderSpec,
  minModuleMm: number,
  caches?: Pick<DesignCaches, 'logoLeavesSpare'>,
): void {
  if (spec.sizeMm === undefined) return;
  const modules = drawnModules(spec, caches);
  if (modules === undefined) return; // too long: symbolFit answers that
  const raster = spec.dpi === undefined ? undefined : { dpi: spec.dpi, minModulePixels: MIN_MODULE_PIXELS };
  if (modulesPrintable(spec.sizeMm, modules, minModuleMm, raster)) return;
  let minimumSizeMm = smallestSizeMm(modules, minModuleMm, raster);
  while (minimumSizeMm < SIZE_MM_LIMITS.max && !modulesPrintable(minimumSizeMm, modules, minModuleMm, raster))
    minimumSizeMm = Math.round(minimumSizeMm * 10 + 1) / 10;
  const why = raster
    ? `at least ${minModuleMm} mm and ${MIN_MODULE_PIXELS} px at ${raster.dpi} dpi`
    : `at least ${minModuleMm} mm`;
  const detail =
    `at ${spec.sizeMm} mm each of this code's ${modules} modules (quiet zone included) would print ` +
    `${(spec.sizeMm / modules).toFixed(3)} mm wide; modules must be ${why}: sizeMm ${minimumSizeMm} or more works`;
  throw new ApiError('invalid_request', `sizeMm: ${detail}`, {
    fields: [{ field: 'sizeMm', detail: `at least ${minimumSizeMm} for this content and margin` }],
    extensions: { minimumSizeMm, minModuleMm },
  });
}
