// Port: turns a render spec into image bytes, for a caller whose account is given its fair share of the render
// capacity.
import type { PlanId } from '../plan-catalogue.js';
import type { RenderedImage } from '../rendered-image.js';
import type { RenderSpec } from '../render-options.js';

/** Whose render this is: admission gives each account a share of the instance, sized by its plan. */
export interface RenderCaller {
  accountId: string;
  plan: PlanId;
}

/**
 * Contract: the returned bytes decode (with any standard QR reader) to exactly `spec.payload`, from the symbol
 * `symbol` names (a branded design may be drawn at a higher level than `spec.errorCorrection`).
 * Throws ApiError `content_too_long` (with the byte limit) when the payload does not fit a QR code
 * at the requested error correction, `invalid_request` when `size` is too small for the code, and
 * `overloaded` (with Retry-After) when the instance, or this account's share of it, has no room.
 */
export interface Renderer {
  render(spec: RenderSpec, caller: RenderCaller): Promise<RenderedImage>;
  /**
   * Throws what `render` would for a spec no image can be drawn for (`content_too_long`, or
   * `invalid_request` on `size` with `minimumSize`), without drawing: cheap enough to run before a
   * request is metered, so a refused render costs the caller's quota nothing and the instance no matrix.
   */
  assertDrawable(spec: RenderSpec): void;
  close(): Promise<void>;
}
