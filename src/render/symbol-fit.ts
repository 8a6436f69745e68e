// Whether a spec can be drawn at all, from the symbol's version alone: no matrix, no pixels.
import { MIN_MODULE_PIXELS, type RenderSpec } from '../domain/render-options.js';
import { dataCapacityBits } from './qr-codewords.js';
import { chooseSymbol } from './qr-encoding.js';
import { BYTE_CAPACITY, ECC_NAMES } from './qr-matrix.js';
import { COUNT_BITS } from './qr-segments.js';

export type SymbolFit = { ok: true } | { ok: false; reason: 'too_long'; limit: number } | { ok: false; reason: 'size_too_small'; minimumSize: number };

const MODE_INDICATOR_BITS = 4;
const ECI_HEADER_BITS = 12;

/** The image side that gives a symbol of this version MIN_MODULE_PIXELS per module, quiet zone included (as layoutFor asks). */
function minimumSizeFor(version: number, margin: number): number {
  return MIN_MODULE_PIXELS * (17 + 4 * version + 2 * margin);
}

/**
 * The version of the whole payload as one UTF-8 byte segment. The encoder's plan is never larger (that
 * segment is always one of the plans it weighs, and it keeps the shortest), so this bounds its version
 * from above, in a microsecond, where the plan itself costs ~10 µs for a URL and ~1.3 ms at capacity.
 */
function byteSegmentVersion(spec: RenderSpec): number | undefined {
  const bytes = Buffer.byteLength(spec.payload);
  const eciBits = spec.eci === true && bytes !== spec.payload.length ? ECI_HEADER_BITS : 0;
  const ecc = ECC_NAMES[spec.errorCorrection];
  for (let version = 1; version <= 40; version++) {
    const countBits = COUNT_BITS[version < 10 ? 0 : version < 27 ? 1 : 2]!.byte;
    if (bytes < 2 ** countBits && eciBits + MODE_INDICATOR_BITS + countBits + 8 * bytes <= dataCapacityBits(version, ecc)) return version;
  }
  return undefined;
}

/**
 * Exactly what rendering the spec would end in, short of the image: the too-long and too-small answers
 * come from the version the encoder would choose (the same chooseSymbol), so this check and the render
 * can never disagree. Cheap first: when even the byte-segment bound fits the size, the plan is not needed.
 */
export function symbolFit(spec: RenderSpec): SymbolFit {
  const bound = byteSegmentVersion(spec);
  if (bound !== undefined && spec.size >= minimumSizeFor(bound, spec.margin)) return { ok: true };
  const symbol = chooseSymbol(spec.payload, ECC_NAMES[spec.errorCorrection], { eci: spec.eci === true });
  if (!symbol) return { ok: false, reason: 'too_long', limit: BYTE_CAPACITY[spec.errorCorrection] };
  const minimumSize = minimumSizeFor(symbol.version, spec.margin);
  return spec.size >= minimumSize ? { ok: true } : { ok: false, reason: 'size_too_small', minimumSize };
}
