// The caption band as an SVG fragment: a filled band and the text as glyph outlines of the bundled font (no system font).
import { fillAttributes as fill } from '../svg-writer.js';
import { FRAME_FONT, FRAME_GLYPHS } from './frame-font.data.js';

const n = (v: number) => Number(v.toFixed(3)).toString();

/** Cap height as a share of the band, and the widest the text may run as a share of the image. */
const CAP_SHARE = 0.42;
const WIDTH_SHARE = 0.88;

/**
 * The band from `top` to `top + height` across `width` pixels, with `text` centred on it.
 * Characters outside the font were refused by the request schema; any left are skipped.
 */
export function captionSvg(text: string, width: number, top: number, height: number, bandColor: string, textColor: string): string {
  const glyphs = [...text].map((ch) => FRAME_GLYPHS[ch]).filter((g) => g !== undefined);
  const advance = glyphs.reduce((sum, [w]) => sum + w, 0);
  const k = Math.min((height * CAP_SHARE) / FRAME_FONT.capHeight, advance > 0 ? (width * WIDTH_SHARE) / advance : Infinity);
  const left = (width - advance * k) / 2;
  const baseline = top + height / 2 + (FRAME_FONT.capHeight * k) / 2;
  let x = 0;
  const paths: string[] = [];
  for (const [w, d] of glyphs) {
    if (d) paths.push(`<path transform="translate(${x})" d="${d}"/>`);
    x += w;
  }
  return (
    `<rect x="0" y="${top}" width="${width}" height="${height}" ${fill(bandColor)}/>` +
    `<g transform="translate(${n(left)} ${n(baseline)}) scale(${n(k)})" ${fill(textColor)}>${paths.join('')}</g>`
  );
}
