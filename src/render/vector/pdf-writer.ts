// Writes print art as a one-page PDF with pdfkit: the page is the physical size, colours DeviceRGB or DeviceCMYK, the
// logo embedded.
import { createRequire } from 'node:module';
import type PDFKitDocument from 'pdfkit';
import type { Cmyk } from '../../domain/print.js';
import { parseColour } from '../../domain/render-options.js';
import { pathOps, rectOps, runOps } from './path-ops.js';
import type { Paint, PrintArt } from './print-art.js';

/**
 * A fixed date: the image must be byte-identical for the same spec (the strong ETag and the image cache say so), and
 * pdfkit derives the file ID from the creation date. The render is the code, not the moment it was drawn.
 */
const FIXED_DATE = new Date('2000-01-01T00:00:00Z');

function setFill(doc: PDFKit.PDFDocument, paint: Paint): void {
  const alpha = parseColour(paint.hex).a / 255;
  // pdfkit writes a four-part array as DeviceCMYK (`/DeviceCMYK cs … scn`), in percent; a hex string as DeviceRGB.
  const colour: string | Cmyk = paint.ink ?? paint.hex.slice(0, 7);
  doc.fillColor(colour as PDFKit.Mixins.ColorValue, alpha);
}

/** The page's content: pdfkit's own coordinate system is already y-down from the top-left, as the art is. */
function draw(doc: PDFKit.PDFDocument, art: PrintArt): void {
  for (const layer of art.layers) {
    switch (layer.kind) {
      case 'rect':
        doc.save();
        setFill(doc, layer.paint);
        doc.addContent(`${rectOps(layer.x, layer.y, layer.width, layer.height)} f`);
        doc.restore();
        break;
      case 'runs': {
        const { transform, path } = runOps(layer.matrix, layer.at);
        doc.save();
        setFill(doc, layer.paint);
        doc.addContent(`${transform} cm\n${path}\nf`);
        doc.restore();
        break;
      }
      case 'path':
        doc.save();
        setFill(doc, layer.paint);
        doc.addContent(`${pathOps(layer.d, layer.at)}\n${layer.evenOdd ? 'f*' : 'f'}`);
        doc.restore();
        break;
      case 'logo':
        doc.image(Buffer.from(layer.png), layer.x, layer.y, {
          fit: [layer.side, layer.side],
          align: 'center',
          valign: 'center',
        });
        break;
    }
  }
}

/** pdfkit and its font stack load on the first PDF (synchronously, through Node's module cache), not at start-up. */
const load = createRequire(import.meta.url);

function newDocument(art: PrintArt): PDFKit.PDFDocument {
  const PDFDocument = load('pdfkit') as typeof PDFKitDocument;
  return new PDFDocument({
    size: [art.width, art.height],
    margin: 0,
    // Uncompressed content: pdfkit deflates each stream at zlib's default level, a large share of a PDF's render
    // (docs/decisions/pdf-uncompressed.md); a code's content stream is only `re` operators, small for a print file.
    compress: false,
    // No default font: nothing is set in type (the caption is outlines), and loading Helvetica's metrics costs a file
    // read.
    font: null as unknown as string,
    info: { Producer: 'QR Manager', Creator: 'QR Manager', CreationDate: FIXED_DATE },
  });
}

/**
 * Synchronous, for art without a logo: pdfkit pushes the whole file into its readable buffer on end(), and read()
 * takes it out at once (no 'data' listener, so nothing waits for a tick). That keeps a plain PDF on the render
 * path's synchronous fast path.
 */
export function writePdf(art: PrintArt): Uint8Array {
  if (art.layers.some((layer) => layer.kind === 'logo'))
    throw new Error('a PDF with a logo is written by writePdfAsync');
  const doc = newDocument(art);
  draw(doc, art);
  doc.end();
  const chunks: Buffer[] = [];
  for (let chunk = doc.read() as Buffer | null; chunk !== null; chunk = doc.read() as Buffer | null) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * Any art, a logo included: pdfkit splits a PNG's alpha channel into a soft mask asynchronously, and ends the file
 * after.
 */
export function writePdfAsync(art: PrintArt): Promise<Uint8Array> {
  const doc = newDocument(art);
  const chunks: Buffer[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  draw(doc, art);
  doc.end();
  return done;
}
