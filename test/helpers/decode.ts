// Decodes generated images with three independent readers (ZXing-cpp, zbar, jsQR) and returns what each shows.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import jsQRModule from 'jsqr';
import sharp from 'sharp';
import { renderImage } from '../../src/render/render-image.js';

const run = promisify(execFile);
// jsqr is CommonJS typed as an ES module: under NodeNext its default import is the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

export type ImageFormat = 'png' | 'webp' | 'svg' | 'pdf' | 'eps';

/**
 * The readers every test decodes with: ZXing C++ (ZXingReader), zbar (zbarimg) and jsQR, the pure-JS decoder web apps
 * embed.
 */
export const READERS = ['zxing', 'zbar', 'jsqr'] as const;
export type Reader = (typeof READERS)[number];

/** What each reader showed: its text, charset guess included, or a `<… found no code>` marker. */
export type Decoded = Record<Reader, string>;

/** What a code holding `text` must decode to: the same text from every reader. */
export function readByAll(text: string): Decoded {
  return { zxing: text, zbar: text, jsqr: text };
}

export const NO_CODE: Decoded = {
  zxing: '<zxing found no code>',
  zbar: '<zbar found no code>',
  jsqr: '<jsqr found no code>',
};

/** Decoder processes take many files at once: one zbarimg and one ZXingReader run per this many images. */
const FILES_PER_CALL = 100;
const BIG_OUTPUT = { maxBuffer: 64 * 1024 * 1024 };

/** The EPS's bounding box width in points (%%HiResBoundingBox), to render it at a readable pixel size. */
function epsWidthPoints(eps: Uint8Array): number {
  const match = /%%HiResBoundingBox: 0 0 ([\d.]+) /.exec(Buffer.from(eps.subarray(0, 512)).toString('latin1'));
  return match ? Number(match[1]) : 512;
}

/**
 * An image to decode; `ownSize`: an SVG drawn by librsvg at its own width and height, as a page shows it (else
 * 512 × 512); `zoom`: that size times this, as a page scaled up or a print at a higher resolution draws it.
 */
export interface ImageToDecode {
  bytes: Uint8Array;
  format: ImageFormat;
  ownSize?: boolean;
  zoom?: number;
}

/**
 * WebP goes through libwebp's dwebp, SVG through librsvg, PDF through poppler's pdftoppm and EPS through Ghostscript:
 * our own code decodes nothing.
 */
export async function toPng(
  dir: string,
  name: string,
  bytes: Uint8Array,
  format: ImageFormat,
  ownSize = false,
  zoom = 1,
): Promise<string> {
  const source = join(dir, `${name}.${format}`);
  await writeFile(source, bytes);
  if (format === 'png') return source;
  const png = join(dir, `${name}.png`);
  if (format === 'webp') await run('dwebp', ['-quiet', source, '-o', png]);
  else if (format === 'pdf')
    await run('pdftoppm', ['-png', '-singlefile', '-scale-to', '600', source, png.slice(0, -'.png'.length)]);
  else if (format === 'eps') {
    const dpi = Math.round((600 * 72) / epsWidthPoints(bytes));
    await run('gs', [
      '-q',
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-dEPSCrop',
      '-sDEVICE=png16m',
      `-r${dpi}`,
      `-sOutputFile=${png}`,
      source,
    ]);
  } else {
    const drawnSize = ownSize ? (zoom === 1 ? [] : ['--zoom', String(zoom)]) : ['--width', '512', '--height', '512'];
    await run('rsvg-convert', [...drawnSize, '--background-color', 'white', source, '-o', png]);
  }
  return png;
}

/** ZXingReader's `Text: "…"` of each file (its own charset handling: ECI, Kanji mode, its guess for byte mode). */
async function zxingMany(paths: readonly string[]): Promise<Map<string, string>> {
  const { stdout } = await run('ZXingReader', ['-format', 'QRCode', ...paths], BIG_OUTPUT).catch(
    (error: { stdout?: string }) => ({
      stdout: error.stdout ?? '', // a file it cannot open ends the run; the files before it are still listed
    }),
  );
  const found = new Map<string, string>();
  // Given one file, ZXingReader prints no `File:` line.
  const output = paths.length === 1 ? `File:       ${paths[0]}\n${stdout}` : stdout;
  for (const block of `\n${output}`.split('\nFile:       ').slice(1)) {
    const file = block.slice(0, block.indexOf('\n'));
    const start = block.indexOf('\nText:       "');
    const end = block.indexOf('"\nBytes:');
    if (start !== -1 && end > start) found.set(file, block.slice(start + '\nText:       "'.length, end));
  }
  return found;
}

/**
 * zbar's text (what zbarimg prints: its own charset guess for byte mode without an ECI). zbarimg prints
 * one `QR-Code:<text>` per code and nothing for a file without one, and its XML mangles non-ASCII, so a
 * separator code is read after every file: what lies between two separators is one file's.
 */
const SEPARATOR_TEXT = 'qrm-decode-separator';

async function zbarMany(paths: readonly string[]): Promise<Array<string | undefined>> {
  const sep = join(dirname(paths[0]!), `qrm-decode-separator-${randomUUID()}.png`);
  await writeFile(
    sep,
    renderImage({
      payload: SEPARATOR_TEXT,
      format: 'png',
      size: 100,
      margin: 4,
      errorCorrection: 'L',
      darkColor: '#000000ff',
      lightColor: '#ffffffff',
    }),
  );
  const args = ['-q', '--nodbus', '-Sdisable', '-Sqrcode.enable', ...paths.flatMap((path) => [path, sep])];
  const { stdout } = await run('zbarimg', args, { ...BIG_OUTPUT, encoding: 'buffer' })
    .catch((error: { stdout?: Buffer }) => ({ stdout: error.stdout ?? Buffer.alloc(0) }))
    .finally(() => rm(sep, { force: true }));
  const chunks = stdout.toString('utf8').split(`QR-Code:${SEPARATOR_TEXT}\n`);
  return paths.map((_, i) => {
    const chunk = chunks[i];
    return chunk ? chunk.replace(/^QR-Code:/, '').replace(/\n$/, '') : undefined;
  });
}

/** jsQR on the image's RGBA pixels (sharp decodes), as a web page feeds it a canvas. */
export async function jsqrRead(png: string | Uint8Array): Promise<string | undefined> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const code = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height);
  return code?.data;
}

/** From this many files a call reads with jsQR on worker threads (starting them costs more than a few images take). */
const JSQR_WORKERS_FROM = 16;
const JSQR_WORKERS = 2;

/**
 * jsQR on worker threads, `JSQR_WORKERS` of them taking the files in turn: sharp decodes each PNG on libuv's pool
 * and the pixels are moved to a worker, so the test's own thread stays free for the app it drives.
 */
async function jsqrManyOnWorkers(paths: readonly string[]): Promise<Array<string | undefined>> {
  const workers = Array.from({ length: JSQR_WORKERS }, () => new Worker(new URL('./jsqr-worker.mjs', import.meta.url)));
  try {
    const pending = new Map<number, (text: string | undefined) => void>();
    for (const worker of workers)
      worker.on('message', ({ id, text }: { id: number; text: string | null }) => pending.get(id)?.(text ?? undefined));
    const readOne = async (path: string, id: number): Promise<string | undefined> => {
      const { data, info } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const pixels = new Uint8Array(data); // a buffer of its own, to move
      return new Promise((resolve) => {
        pending.set(id, resolve);
        workers[id % JSQR_WORKERS]!.postMessage({ id, data: pixels, width: info.width, height: info.height }, [
          pixels.buffer,
        ]);
      });
    };
    // A few images in flight at once: each is its full RGBA (a 1024 px image is 4 MB).
    const out: Array<string | undefined> = new Array(paths.length);
    let next = 0;
    const runner = async () => {
      while (next < paths.length) {
        const id = next++;
        out[id] = await readOne(paths[id]!, id).catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: 4 * JSQR_WORKERS }, runner));
    return out;
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

async function jsqrMany(paths: readonly string[]): Promise<Array<string | undefined>> {
  if (paths.length >= JSQR_WORKERS_FROM) return jsqrManyOnWorkers(paths);
  const out: Array<string | undefined> = [];
  for (const path of paths) out.push(await jsqrRead(path).catch(() => undefined));
  return out;
}

/**
 * Decodes many PNG files with all three readers: one zbarimg and one ZXingReader run per hundred files, jsQR on worker
 * threads beside them.
 */
export async function decodePngFiles(paths: readonly string[]): Promise<Decoded[]> {
  const decoded: Decoded[] = [];
  const jsqrFound = jsqrMany(paths);
  for (let i = 0; i < paths.length; i += FILES_PER_CALL) {
    const slice = paths.slice(i, i + FILES_PER_CALL);
    const [zxingFound, zbarFound] = await Promise.all([zxingMany(slice), zbarMany(slice)]);
    slice.forEach((path, j) =>
      decoded.push({
        zxing: zxingFound.get(path) ?? NO_CODE.zxing,
        zbar: zbarFound[j] ?? NO_CODE.zbar,
        jsqr: NO_CODE.jsqr,
      }),
    );
  }
  (await jsqrFound).forEach((text, i) => (decoded[i]!.jsqr = text ?? NO_CODE.jsqr));
  return decoded;
}

/**
 * ZXing alone on many PNG files (a hundred per ZXingReader run): the fast reader for runs of thousands, where all three
 * would take minutes.
 */
export async function zxingReadFiles(paths: readonly string[]): Promise<Array<string | undefined>> {
  const read: Array<string | undefined> = [];
  for (let i = 0; i < paths.length; i += FILES_PER_CALL) {
    const slice = paths.slice(i, i + FILES_PER_CALL);
    const found = await zxingMany(slice);
    for (const path of slice) read.push(found.get(path));
  }
  return read;
}

/** Decodes many images of any format (WebP and SVG converted by libwebp and librsvg first). */
export async function decodeImages(images: readonly ImageToDecode[]): Promise<Decoded[]> {
  const dir = await mkdtemp(join(tmpdir(), 'qrm-decode-'));
  try {
    const paths = await Promise.all(
      images.map(({ bytes, format, ownSize, zoom }, i) => toPng(dir, `image-${i}`, bytes, format, ownSize, zoom)),
    );
    return await decodePngFiles(paths);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function decodeQr(bytes: Uint8Array, format: ImageFormat): Promise<Decoded> {
  return (await decodeImages([{ bytes, format }]))[0]!;
}

/**
 * Runs of a property test that decodes every case: decoder processes a run, so far fewer than fast-check's default 100.
 */
export const DECODED_RUNS = 25;

/**
 * The payload drawn as the service draws it (PNG, level L so long payloads fit, 1024 px) and read back by the
 * three readers: the text a scanner gives an app. Throws, showing all of them, unless every reader reads exactly the
 * payload.
 */
export async function scanBack(payload: string): Promise<string> {
  const png = renderImage({
    payload,
    format: 'png',
    size: 1024,
    margin: 4,
    errorCorrection: 'L',
    darkColor: '#000000ff',
    lightColor: '#ffffffff',
  });
  const decoded = await decodeQr(png, 'png');
  if (READERS.some((reader) => decoded[reader] !== payload))
    throw new Error(`the code scans back differently: ${JSON.stringify({ payload, ...decoded })}`);
  return decoded.zxing;
}
