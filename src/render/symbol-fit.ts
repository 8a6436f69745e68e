// Whether a spec can be drawn at all, from the symbol's version alone: no matrix, no pixels.
import type { DesignCaches } from './branded/design-caches.js';
import type { EccName } from './qr-internals.js';
import { MIN_MODULE_PIXELS, type ErrorCorrectionLevel, type RenderSpec } from '../domain/render-options.js';
import { levelForLogo, levelsForLogo } from './logo-level.js';
import { dataCapacityBits } from './qr-codewords.js';
import { chooseSymbol } from './qr-encoding.js';
import { BYTE_CAPACITY, ECC_NAMES } from './qr-matrix.js';
import { COUNT_BITS, halfwidthKatakanaByte, isAlphanumeric } from './qr-segments.js';

export type SymbolFit =
  | { ok: true }
  | { ok: false; reason: 'too_long'; limit: number }
  | { ok: false; reason: 'size_too_small'; minimumSize: number };

const MODE_INDICATOR_BITS = 4;
const ECI_HEADER_BITS = 12;

/**
 * The image side that gives a symbol of this version MIN_MODULE_PIXELS per module, quiet zone included (as layoutFor
 * asks).
 */
function minimumSizeFor(version: number, margin: number): number {
  return MIN_MODULE_PIXELS * (17 + 4 * version + 2 * margin);
}

/**
 * The version of the whole payload as one UTF-8 byte segment (behind the ECI when not ASCII). The encoder's plan is
 * never larger (that
 * segment is always one of the plans it weighs, and it keeps the shortest), so this bounds its version
 * from above at a fraction of the plan's own cost, which grows with the payload.
 */
function byteSegmentVersion(spec: RenderSpec): number | undefined {
  const bytes = Buffer.byteLength(spec.payload);
  const eciBits = bytes !== spec.payload.length ? ECI_HEADER_BITS : 0; // text beyond ASCII goes behind ECI 26 in UTF-8
  const ecc = ECC_NAMES[spec.errorCorrection];
  for (let version = 1; version <= 40; version++) {
    const countBits = COUNT_BITS[version < 10 ? 0 : version < 27 ? 1 : 2]!.byte;
    if (
      bytes < 2 ** countBits &&
      eciBits + MODE_INDICATOR_BITS + countBits + 8 * bytes <= dataCapacityBits(version, ecc)
    )
      return version;
  }
  return undefined;
}

/**
 * Sixths of a bit no plan can go under for this text: a digit takes at least 10 bits per 3 (numeric
 * mode), another alphanumeric 11 per 2, any other character one byte, and one beyond Latin-1 (bar
 * half-width katakana, one Shift-JIS byte) 13 bits as Kanji or 16 as two bytes. Headers are left out:
 * it is a lower bound, so text over version 40 even by it is too long without planning (the plan costs
 * milliseconds at 7,089 characters, on the event loop and before anything is counted).
 */
function leastDataSixths(payload: string): number {
  let sixths = 0;
  for (const ch of payload) {
    const c = ch.codePointAt(0)!;
    sixths +=
      c >= 0x30 && c <= 0x39
        ? 20
        : isAlphanumeric(c)
          ? 33
          : c < 0x100 || halfwidthKatakanaByte(c) !== undefined
            ? 48
            : 78;
  }
  return sixths;
}

/** The smallest version whose data capacity is not below the bound: the encoder's can be no smaller. */
function leastVersion(sixths: number, ecc: EccName): number | undefined {
  for (let version = 1; version <= 40; version++) if (6 * dataCapacityBits(version, ecc) >= sixths) return version;
  return undefined;
}

/**
 * Exactly what rendering the spec would end in, short of the image: the too-long and too-small answers
 * come from the version the encoder would choose (the same chooseSymbol), so this check and the render
 * can never disagree. Cheap first: the plan is needed only when the byte-segment bound does not fit the
 * size and the least bits any plan could take neither overflow version 40 nor fix the version alone.
 */
export function symbolFit(spec: RenderSpec): SymbolFit {
  const bound = byteSegmentVersion(spec);
  if (bound !== undefined && spec.size >= minimumSizeFor(bound, spec.margin)) return { ok: true };
  const ecc = ECC_NAMES[spec.errorCorrection];
  const tooLong: SymbolFit = { ok: false, reason: 'too_long', limit: BYTE_CAPACITY[spec.errorCorrection] };
  const least = leastVersion(leastDataSixths(spec.payload), ecc);
  if (least === undefined) return tooLong;
  // The encoder's version lies between the two bounds: when they meet (text only bytes can carry), it is known.
  const version = least === bound ? bound : chooseSymbol(spec.payload, ecc, { eci: spec.eci === true })?.version;
  if (version === undefined) return tooLong;
  const minimumSize = minimumSizeFor(version, spec.margin);
  return spec.size >= minimumSize ? { ok: true } : { ok: false, reason: 'size_too_small', minimumSize };
}

/**
 * Modules per side, quiet zone included, of the symbol a render of this spec draws: the encoder's version, and for a
 * branded design with a logo the level levelForLogo picks (as matrixForDesign does). Undefined when nothing fits.
 * `caches`: the caller's memo of the logo rule (it reads the version's codeword placement table).
 */
export function drawnModules(spec: RenderSpec, caches?: Pick<DesignCaches, 'logoLeavesSpare'>): number | undefined {
  const options = { eci: spec.eci === true };
  const logo = spec.branding?.logo;
  const symbolAt = (level: ErrorCorrectionLevel) => {
    const version = chooseSymbol(spec.payload, ECC_NAMES[level], options)?.version;
    return version === undefined ? undefined : { size: 17 + 4 * version };
  };
  let size: number | undefined;
  if (!logo) size = symbolAt(spec.errorCorrection)?.size;
  else {
    const rule =
      caches &&
      ((matrixSize: number, level: ErrorCorrectionLevel) => caches.logoLeavesSpare(matrixSize, level, logo.scale));
    const chosen = levelForLogo(
      levelsForLogo(spec.errorCorrection, spec.branding!.errorCorrectionFixed),
      logo.scale,
      symbolAt,
      rule,
    );
    if (!('tooLong' in chosen)) size = 'symbol' in chosen ? chosen.symbol.size : chosen.fitsNone;
  }
  return size === undefined ? undefined : size + 2 * spec.margin;
}
