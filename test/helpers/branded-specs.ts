// The mark logo, a red-finder design and the PNG render spec the branded drawing's unit tests draw with.
import type { Branding, FinderShape, LogoArt, ModuleShape } from '../../src/domain/branding.js';
import type { RenderSpec } from '../../src/domain/render-options.js';
import { logoPng } from './logos.js';

/** The two-colour mark of logos.ts as the renderer takes it, at the default scale. */
export async function markLogo(): Promise<LogoArt> {
  return { id: 'mark', digest: 'mark', png: new Uint8Array(await logoPng()), scale: 0.2 };
}

/** A PNG at error correction M, navy on `lightColor` (white by default), drawn with `branding`. */
export function brandedPngSpec(
  payload: string,
  size: number,
  margin: number,
  branding: Branding,
  lightColor = '#ffffffff',
): RenderSpec {
  return { payload, format: 'png', size, margin, errorCorrection: 'M', darkColor: '#1d3557ff', lightColor, branding };
}

/** A design with red finders and the error correction left to the renderer (raised for a logo). */
export function redFinders(moduleShape: ModuleShape, finderShape: FinderShape, logo?: LogoArt): Branding {
  return { moduleShape, finderShape, finderColor: '#c1121fff', errorCorrectionFixed: false, ...(logo && { logo }) };
}
