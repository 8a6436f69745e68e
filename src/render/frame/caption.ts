// The caption band as an SVG fragment: a filled band and the text as glyph outlines of the bundled font (no system
// font).
import { fillAttributes as fill } from '../svg-writer.js';
import { FRAME_FONT, FRAME_GLYPHS } from './frame-font.data.js';

const n = (v: number) => Number(v.toFixed(3)).toString();

/** Cap height as a share of the band, and the widest the text may run as a share of the image. */
const CAP_SHARE = 0.42;
const WIDTH_SHARE = 0.88;

/**
 * Where the caption's glyphs go: each glyph's path data (font units) at its x advance, placed by translate(left,
 * baseline) scale(k).
 */
export interface CaptionGeometry {
  left: number;
  baseline: number;
  /** Pixels per font unit. */
  k: number;
  glyphs: Array<{ x: number; d: string }>;
}

/**
 * The text centred on the band from `top` to `top + height` across `width` pixels (one geometry for SVG, PDF and EPS).
 * Characters outside the font were refused by the request schema; any left are skipped.
 */
export function captionGeometry(text: string, width: number, top: number, height: number): CaptionGeometry {
  const glyphs = [...text].map((ch) => FRAME_GLYPHS[ch]).filter((g) => g !== undefined);
  const advance = glyphs.reduce((sum, [w]) => sum + w, 0);
  const k = Math.min(
    (height * CAP_SHARE) / FRAME_FONT.capHeight,
    advance > 0 ? (width * WIDTH_SHARE) / advance : Infinity,
  );
  const left = (width - advance * k) / 2;
  const baseline = top + height / 2 + (FRAME_FONT.capHeight * k) / 2;
  let x = 0;
  const placed: CaptionGeometry['glyphs'] = [];
  for (const [w, d] of glyphs) {
    if (d) placed.push({ x, d });
    x += w;
  }
  return { left, baseline, k, glyphs: placed };
}

/** The band and its caption as an SVG fragment. */
export function captionSvg(
  text: string,
  width: number,
  top: number,
  height: number,
  bandColor: string,
  textColor: string,
): string {
  const { left, baseline, k, glyphs } = captionGeometry(text, width, top, height);
  const paths = glyphs.map(({ x, d }) => `<path transform="translate(${x})" d="${d}"/>`);
  return (
    `<rect x="0" y="${top}" width="${width}" height="${height}" ${fill(bandColor)}/>` +
    `<g transform="translate(${n(left)} ${n(baseline)}) scale(${n(k)})" ${fill(textColor)}>${paths.join('')}</g>`
  );
}
