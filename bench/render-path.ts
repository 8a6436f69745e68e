// Micro benchmarks of the render path, each beside its alternative: matrix encoder, PNG writer, WebP effort, SVG.
import QRCode from 'qrcode';
import { layoutFor } from '../src/render/layout.js';
import { deflateSync } from 'node:zlib';
import { packedRows } from '../src/render/packed-rows.js';
import { expandScanlines, PNG_DEFLATE_LEVEL, PNG_ROWS, pngFile, writePng } from '../src/render/png-writer.js';
import { buildMatrix } from '../src/render/qr-matrix.js';
import { writeSvg } from '../src/render/svg-writer.js';
import { writeWebp } from '../src/render/webp-writer.js';
import { measure, type Measured } from './measure.js';

async function sharpLosslessWebp(png: Buffer): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp(png).webp({ lossless: true, effort: 1 }).toBuffer();
}

const URLS = Array.from(
  { length: 1000 },
  (_, i) => `https://example.com/p/${i}/${(i * 7919).toString(36).padStart(8, 'x')}`,
);
const BLACK = '#000000ff';
const WHITE = '#ffffffff';

export interface RenderPathResult {
  rows: Array<Measured & { bytes?: number }>;
}

export async function renderPathBench(seconds = 1): Promise<RenderPathResult> {
  const rows: RenderPathResult['rows'] = [];
  const url = (i: number) => URLS[i % URLS.length]!;
  const matrix = buildMatrix(url(0), 'M');
  const layout = layoutFor(matrix, 512, 4);

  rows.push(
    await measure(
      'matrix: qrcode.create (short URL)',
      (i) => QRCode.create(url(i), { errorCorrectionLevel: 'M' }),
      seconds,
    ),
  );
  rows.push(await measure('matrix: qr (short URL) — used', (i) => buildMatrix(url(i), 'M'), seconds));

  const naive = await QRCode.toBuffer(url(0), { width: 512, errorCorrectionLevel: 'M' });
  rows.push({
    ...(await measure(
      'png: qrcode.toBuffer 512 px (pngjs RGBA)',
      (i) => QRCode.toBuffer(url(i), { width: 512 }),
      seconds,
    )),
    bytes: naive.length,
  });
  // The writer before: every scanline unfiltered (level 3 was used), the alternative to filtering the repeats Up.
  const unfiltered = (level: number) =>
    pngFile(layout, BLACK, WHITE, deflateSync(expandScanlines(packedRows(matrix, layout, PNG_ROWS)), { level }));
  for (const level of [1, 3]) {
    rows.push({
      ...(await measure(
        `png: 1-bit palette, rows unfiltered, node:zlib level ${level}, 512 px`,
        () => unfiltered(level),
        seconds,
      )),
      bytes: unfiltered(level).length,
    });
  }
  for (const level of [1, 3, 6]) {
    const used = level === PNG_DEFLATE_LEVEL ? ' — used' : '';
    rows.push({
      ...(await measure(
        `png: 1-bit palette, repeated rows filtered Up, node:zlib level ${level}, 512 px${used}`,
        () => writePng(matrix, layout, BLACK, WHITE, level),
        seconds,
      )),
      bytes: writePng(matrix, layout, BLACK, WHITE, level).length,
    });
  }
  // sharp (libwebp, lossless effort 1) was the WebP writer before ours: kept here as the alternative it replaced.
  const sharpWebp = () => sharpLosslessWebp(writePng(matrix, layout, BLACK, WHITE));
  rows.push({
    ...(await measure('webp: sharp lossless effort 1 from our PNG, 512 px', sharpWebp, seconds)),
    bytes: (await sharpWebp()).length,
  });
  rows.push({
    ...(await measure('webp: our VP8L writer, 512 px — used', () => writeWebp(matrix, layout, BLACK, WHITE), seconds)),
    bytes: writeWebp(matrix, layout, BLACK, WHITE).length,
  });
  const svg = writeSvg(matrix, 512, 4, BLACK, WHITE);
  rows.push({
    ...(await measure('svg: one path of runs', () => writeSvg(matrix, 512, 4, BLACK, WHITE), seconds)),
    bytes: Buffer.byteLength(svg),
  });
  const qrcodeSvg = await QRCode.toString(url(0), { type: 'svg', width: 512 });
  rows.push({
    ...(await measure('svg: qrcode.toString', (i) => QRCode.toString(url(i), { type: 'svg', width: 512 }), seconds)),
    bytes: Buffer.byteLength(qrcodeSvg),
  });
  return { rows };
}

export function renderPathTable(result: RenderPathResult): string {
  const lines = ['| operation | ops/s (1 thread) | µs/op | bytes |', '|---|---:|---:|---:|'];
  for (const row of result.rows) {
    lines.push(
      `| ${row.name} | ${Math.round(row.opsPerSecond).toLocaleString('en-US')} | ${row.microsPerOp.toFixed(1)}` +
        ` | ${row.bytes?.toLocaleString('en-US') ?? ''} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await renderPathBench(Number(process.env.BENCH_SECONDS ?? 1));
  console.log(renderPathTable(result));
}
