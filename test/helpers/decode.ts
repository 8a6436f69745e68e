// Decodes a generated image with two independent real decoders (zbar and ZXing-cpp) and returns what each read.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { renderImage } from '../../src/render/render-image.js';

const run = promisify(execFile);

export type ImageFormat = 'png' | 'webp' | 'svg';

export interface Decoded {
  zbar: string;
  zxing: string;
}

/** WebP goes through libwebp's dwebp and SVG through librsvg, so our own code decodes nothing. */
async function toPng(dir: string, bytes: Uint8Array, format: ImageFormat): Promise<string> {
  const source = join(dir, `image.${format}`);
  await writeFile(source, bytes);
  if (format === 'png') return source;
  const png = join(dir, 'image.png');
  if (format === 'webp') await run('dwebp', ['-quiet', source, '-o', png]);
  else await run('rsvg-convert', ['--width', '512', '--height', '512', '--background-color', 'white', source, '-o', png]);
  return png;
}

/**
 * zbar's text mode guesses a charset for non-ASCII bytes and tries Shift-JIS and Big5 before UTF-8, so UTF-8
 * without an ECI is read from binary mode (the exact bytes). Bytes that are not UTF-8 (ISO-8859-1, Kanji
 * mode) are read in text mode, where zbar converts them itself.
 */
async function zbar(png: string): Promise<string> {
  const read = (mode: string[]) => run('zbarimg', ['-q', '--nodbus', '--raw', '-Sdisable', '-Sqrcode.enable', ...mode, png], { encoding: 'buffer' });
  const { stdout } = await read(['-Sbinary']);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(stdout);
  } catch {
    return (await read([])).stdout.toString('utf8').replace(/\n$/, '');
  }
}

/** ZXing's text (its own charset handling: ECI, Kanji mode, its guess for byte mode), from `Text: "…"` up to the `Bytes:` line. */
async function zxing(png: string): Promise<string> {
  const { stdout } = await run('ZXingReader', ['-format', 'QRCode', png], { encoding: 'buffer' });
  const out = stdout.toString('utf8');
  const start = out.indexOf('Text:       "');
  const end = out.lastIndexOf('"\nBytes:');
  if (start === -1 || end < start) throw new Error('no code');
  return out.slice(start + 'Text:       "'.length, end);
}

export async function decodeQr(bytes: Uint8Array, format: ImageFormat): Promise<Decoded> {
  const dir = await mkdtemp(join(tmpdir(), 'qrm-decode-'));
  try {
    const png = await toPng(dir, bytes, format);
    const [zbarText, zxingText] = await Promise.all([zbar(png).catch(() => '<zbar found no code>'), zxing(png).catch(() => '<zxing found no code>')]);
    return { zbar: zbarText, zxing: zxingText };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs of a property test that decodes every case: two decoder processes a run, so far fewer than fast-check's default 100. */
export const DECODED_RUNS = 25;

/**
 * The payload drawn as the service draws it (PNG, level L so long payloads fit, 1024 px) and read back by zbar and ZXing:
 * the text a scanner gives an app. Throws, showing all three, unless both decoders read exactly the payload.
 */
export async function scanBack(payload: string): Promise<string> {
  const png = renderImage({ payload, format: 'png', size: 1024, margin: 4, errorCorrection: 'L', darkColor: '#000000ff', lightColor: '#ffffffff' });
  const decoded = await decodeQr(png, 'png');
  if (decoded.zbar !== payload || decoded.zxing !== payload) throw new Error(`the code scans back differently: ${JSON.stringify({ payload, ...decoded })}`);
  return decoded.zxing;
}

/** Decoder calls take many files at once: one zbarimg and one ZXingReader run per this many images. */
const FILES_PER_CALL = 100;

function unescapeXmlAttribute(value: string): string {
  return value.replaceAll('&apos;', "'").replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** zbar's XML names each source file; its text mode is exact for ASCII payloads (what batch tests encode). */
async function zbarMany(paths: string[]): Promise<Map<string, string>> {
  const { stdout } = await run('zbarimg', ['-q', '--nodbus', '--xml', ...paths], { maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }), // exit 4: some file had no code; the others are still listed
  );
  const found = new Map<string, string>();
  for (const source of stdout.split('<source href=').slice(1)) {
    const href = unescapeXmlAttribute(/^'([^']*)'/.exec(source)?.[1] ?? '');
    const data = /<data><!\[CDATA\[([\s\S]*?)\]\]><\/data>/.exec(source)?.[1];
    if (data !== undefined) found.set(href, data);
  }
  return found;
}

/** ZXing's verbose output gives each file's exact bytes in hex. */
async function zxingMany(paths: string[]): Promise<Map<string, string>> {
  const { stdout } = await run('ZXingReader', ['-format', 'QRCode', ...paths], { maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  const found = new Map<string, string>();
  let file: string | undefined;
  for (const line of stdout.split('\n')) {
    const fileMatch = /^File:\s+(.*)$/.exec(line);
    if (fileMatch) file = fileMatch[1]!;
    const bytesMatch = /^Bytes:\s+([0-9A-F ]*)$/.exec(line);
    if (bytesMatch && file !== undefined) found.set(file, Buffer.from(bytesMatch[1]!.replaceAll(' ', ''), 'hex').toString('utf8'));
  }
  return found;
}

/** Decodes many PNG files with both decoders, a hundred per decoder call; a file with no code reads as a marker string. */
export async function decodePngFiles(paths: readonly string[]): Promise<Decoded[]> {
  const decoded: Decoded[] = [];
  for (let i = 0; i < paths.length; i += FILES_PER_CALL) {
    const slice = paths.slice(i, i + FILES_PER_CALL);
    const [zbarFound, zxingFound] = await Promise.all([zbarMany(slice), zxingMany(slice)]);
    for (const path of slice) decoded.push({ zbar: zbarFound.get(path) ?? '<zbar found no code>', zxing: zxingFound.get(path) ?? '<zxing found no code>' });
  }
  return decoded;
}

export interface BatchDecoded {
  zbar: string | undefined;
  zxing: string | undefined;
}

/** ZXingReader -1 prints `file QRCode "text"`, with non-ASCII and control characters as <U+XXXX>. */
function unescapeZxing(text: string): string {
  return text.replace(/<U\+([0-9A-F]{1,6})>/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
}

async function zxingBatch(paths: string[]): Promise<Map<string, string>> {
  const { stdout } = await run('ZXingReader', ['-1', '-format', 'QRCode', ...paths], { maxBuffer: 64 * 1024 * 1024 }).catch((error) => ({
    stdout: String(error.stdout ?? ''),
  }));
  const read = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const match = /^(\S+) QRCode "(.*)"$/.exec(line);
    if (match) read.set(match[1]!, unescapeZxing(match[2]!));
  }
  return read;
}

/**
 * In text mode zbarimg prints one line per code in file order, so one run reads them all (a count that does not
 * match falls back to one file per run); in binary mode it adds no separator, so each file gets its own run.
 */
async function zbarBatch(paths: string[], mode: 'text' | 'binary'): Promise<Array<string | undefined>> {
  // QR only: zbar also finds 1-D barcodes in dense module patterns, which would add lines.
  const args = ['-q', '--nodbus', '--raw', '-Sdisable', '-Sqrcode.enable', ...(mode === 'binary' ? ['-Sbinary'] : [])];
  const once = async (files: string[]) => {
    const { stdout } = await run('zbarimg', [...args, ...files], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }).catch((error) => ({
      stdout: (error.stdout as Buffer) ?? Buffer.alloc(0),
    }));
    return stdout.toString('utf8');
  };
  if (mode === 'text') {
    const lines = (await once(paths)).split('\n').slice(0, -1);
    if (lines.length === paths.length) return lines;
  }
  const each: Array<string | undefined> = [];
  for (const path of paths) {
    const out = await once([path]);
    each.push(mode === 'text' ? out.replace(/\n$/, '') : out || undefined);
  }
  return each;
}

/**
 * Decodes many PNG files (each holding one code, no line breaks in its text) with one run of each decoder.
 * `zbarMode` binary gives zbar's exact bytes, read as UTF-8: zbar guesses a charset for byte mode without
 * an ECI and tries Shift-JIS and Big5 before UTF-8, so for UTF-8 text without ECI its text mode is no test.
 */
export async function decodePngFilesAsText(paths: string[], zbarMode: 'text' | 'binary'): Promise<BatchDecoded[]> {
  const [zbarRead, zxingRead] = await Promise.all([zbarBatch(paths, zbarMode), zxingBatch(paths)]);
  return paths.map((path, i) => ({ zbar: zbarRead[i], zxing: zxingRead.get(path) }));
}
