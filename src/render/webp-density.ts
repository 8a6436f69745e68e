// Writes a print resolution into a WebP: the extended format (VP8X) with an EXIF chunk holding XResolution and
// YResolution.

/** A minimal little-endian TIFF/EXIF block: IFD0 with XResolution, YResolution (dpi/1) and ResolutionUnit (2: inch). */
export function exifResolution(dpi: number): Buffer {
  const exif = Buffer.alloc(66);
  exif.write('II*\0', 0, 'latin1');
  exif.writeUInt32LE(8, 4); // IFD0 offset
  exif.writeUInt16LE(3, 8); // entries
  const entry = (at: number, tag: number, type: number, value: number) => {
    exif.writeUInt16LE(tag, at);
    exif.writeUInt16LE(type, at + 2);
    exif.writeUInt32LE(1, at + 4);
    exif.writeUInt32LE(value, at + 8);
  };
  entry(10, 0x011a, 5, 50); // XResolution: RATIONAL at offset 50
  entry(22, 0x011b, 5, 58); // YResolution: RATIONAL at offset 58
  entry(34, 0x0128, 3, 2); // ResolutionUnit: inch
  exif.writeUInt32LE(0, 46); // no next IFD
  for (const at of [50, 58]) {
    exif.writeUInt32LE(dpi, at);
    exif.writeUInt32LE(1, at + 4);
  }
  return exif;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(8 + data.length + (data.length & 1));
  out.write(type, 0, 'latin1');
  out.writeUInt32LE(data.length, 4);
  out.set(data, 8);
  return out;
}

/** Canvas size and alpha of a simple lossless WebP, from its VP8L header (RFC 9649 §3.2). */
function vp8lHeader(data: Buffer): { width: number; height: number; alpha: boolean } {
  const bits = data.readUInt32LE(1);
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, alpha: ((bits >>> 28) & 1) === 1 };
}

/**
 * The same image with its resolution written (RFC 9649 §2.7: VP8X, then the image, then EXIF). Only the lossless
 * simple form (one VP8L chunk) is produced by our writers; an already extended file gets the flag and the chunk.
 */
export function withWebpDensity(webp: Buffer, dpi: number | undefined): Buffer {
  if (dpi === undefined) return webp;
  const chunks: Array<{ type: string; data: Buffer }> = [];
  for (let at = 12; at + 8 <= webp.length;) {
    const type = webp.toString('latin1', at, at + 4);
    const length = webp.readUInt32LE(at + 4);
    chunks.push({ type, data: webp.subarray(at + 8, at + 8 + length) });
    at += 8 + length + (length & 1);
  }
  const parts: Buffer[] = [];
  const first = chunks[0];
  if (first?.type === 'VP8X') {
    const header = Buffer.from(first.data);
    header[0] = header[0]! | 0x08; // EXIF present
    parts.push(
      chunk('VP8X', header),
      ...chunks
        .slice(1)
        .filter((c) => c.type !== 'EXIF')
        .map((c) => chunk(c.type, c.data)),
    );
  } else if (first?.type === 'VP8L') {
    const { width, height, alpha } = vp8lHeader(first.data);
    const header = Buffer.alloc(10);
    header[0] = 0x08 | (alpha ? 0x10 : 0);
    header.writeUIntLE(width - 1, 4, 3);
    header.writeUIntLE(height - 1, 7, 3);
    parts.push(chunk('VP8X', header), chunk('VP8L', first.data));
  } else {
    throw new Error(`cannot write a resolution into a WebP starting with ${first?.type ?? 'nothing'}`);
  }
  parts.push(chunk('EXIF', exifResolution(dpi)));
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(4 + body.length, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, body]);
}
