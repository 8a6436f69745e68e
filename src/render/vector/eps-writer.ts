// Writes print art as Encapsulated PostScript (EPSF-3.0, LanguageLevel 3): small hand-written PostScript, DeviceCMYK
// for cmyk() inks.
import { deflateSync } from 'node:zlib';
import { parseColour } from '../../domain/render-options.js';
import { num, pathOps, rectOps, runOps } from './path-ops.js';
import type { Paint, PrintArt } from './print-art.js';

/** The logo as flat RGB rows (its transparency already composited onto the light colour: PostScript has none). */
export interface EpsLogo {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/** The PDF path operators by their PDF names, so the content is the same text the PDF writer emits. */
const PROLOG = [
  '/m { moveto } bind def',
  '/l { lineto } bind def',
  '/c { curveto } bind def',
  '/h { closepath } bind def',
  '/re { 4 2 roll moveto 1 index 0 rlineto 0 exch rlineto neg 0 rlineto closepath } bind def',
].join('\n');

function setFill(paint: Paint): string {
  if (paint.ink) return `${paint.ink.map((part) => num(part / 100)).join(' ')} setcmykcolor`;
  const { r, g, b } = parseColour(paint.hex);
  return `${num(r / 255)} ${num(g / 255)} ${num(b / 255)} setrgbcolor`;
}

/** The logo fitted and centred in its box; the y-down page makes the image's first row its top. */
function logoOps(box: { x: number; y: number; side: number }, logo: EpsLogo): string {
  const fit = box.side / Math.max(logo.width, logo.height);
  const width = logo.width * fit;
  const height = logo.height * fit;
  const data = deflateSync(logo.rgb).toString('hex');
  return [
    'gsave',
    `${num(box.x + (box.side - width) / 2)} ${num(box.y + (box.side - height) / 2)} translate ${num(width)} ` +
      `${num(height)} scale`,
    '/DeviceRGB setcolorspace',
    `<< /ImageType 1 /Width ${logo.width} /Height ${logo.height} /BitsPerComponent 8 /Decode [0 1 0 1 0 1]`,
    `/ImageMatrix [${logo.width} 0 0 ${logo.height} 0 0] /DataSource currentfile /ASCIIHexDecode filter ` +
      `/FlateDecode filter >> image`,
    `${data.replace(/.{1,128}/g, '$&\n')}>`,
    'grestore',
  ].join('\n');
}

export function writeEps(art: PrintArt, logo?: EpsLogo): Uint8Array {
  const body: string[] = [];
  for (const layer of art.layers) {
    switch (layer.kind) {
      case 'rect':
        body.push(`${setFill(layer.paint)}\n${rectOps(layer.x, layer.y, layer.width, layer.height)} fill`);
        break;
      case 'runs': {
        const { transform, path } = runOps(layer.matrix, layer.at);
        body.push(`gsave [${transform}] concat\n${setFill(layer.paint)}\n${path}\nfill\ngrestore`);
        break;
      }
      case 'path':
        body.push(`${setFill(layer.paint)}\n${pathOps(layer.d, layer.at)}\n${layer.evenOdd ? 'eofill' : 'fill'}`);
        break;
      case 'logo':
        if (logo) body.push(logoOps(layer, logo));
        break;
    }
  }
  const text = [
    '%!PS-Adobe-3.0 EPSF-3.0',
    `%%BoundingBox: 0 0 ${Math.ceil(art.width - 1e-6)} ${Math.ceil(art.height - 1e-6)}`,
    `%%HiResBoundingBox: 0 0 ${num(art.width)} ${num(art.height)}`,
    '%%Creator: QR Manager',
    '%%LanguageLevel: 3',
    '%%EndComments',
    '%%BeginProlog',
    PROLOG,
    '%%EndProlog',
    'save',
    // y down from the top-left, as the art (and SVG) is drawn.
    `0 ${num(art.height)} translate 1 -1 scale`,
    ...body,
    'restore',
    'showpage',
    '%%EOF',
    '',
  ].join('\n');
  return Buffer.from(text, 'latin1');
}
