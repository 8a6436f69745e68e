// Length-limited Huffman codes from symbol counts, as canonical codes for an LSB-first stream: what VP8L (WebP) and
// deflate (PNG) both write with.

/** The longest code either format allows. */
const MAX_LENGTH = 15;

/**
 * Symbols are packed under their weight in one number, so a native numeric sort orders them (alphabets have < 1024
 * symbols).
 */
const SYMBOL_SLOTS = 1024;

/** Huffman lengths for the used symbols, no longer than `limit`: counts are flattened until the tree fits. */
export function huffmanLengths(counts: ArrayLike<number>, limit: number): Uint8Array {
  const lengths = new Uint8Array(counts.length);
  let leaves = 0;
  for (let s = 0; s < counts.length; s++) if (counts[s]! > 0) leaves++;
  // One or two symbols: one bit each (a lone symbol's bit is never written), no tree to build.
  if (leaves <= 2) {
    for (let s = 0; s < counts.length; s++) if (counts[s]! > 0) lengths[s] = 1;
    return lengths;
  }
  const keys = new Float64Array(leaves);
  for (let s = 0, k = 0; s < counts.length; s++) if (counts[s]! > 0) keys[k++] = counts[s]! * SYMBOL_SLOTS + s;
  const weight = new Float64Array(2 * leaves - 1);
  const parent = new Int32Array(2 * leaves - 1);
  const depth = new Uint8Array(2 * leaves - 1);
  for (let shift = 0; ; shift++) {
    keys.sort();
    for (let i = 0; i < leaves; i++) weight[i] = Math.max(1, Math.floor(keys[i]! / SYMBOL_SLOTS / 2 ** shift));
    // Two-queue Huffman: leaves sorted by weight, internal nodes created in non-decreasing weight.
    let leaf = 0;
    let inner = leaves;
    for (let next = leaves; next < 2 * leaves - 1; next++) {
      const a = leaf < leaves && (inner >= next || weight[leaf]! <= weight[inner]!) ? leaf++ : inner++;
      const b = leaf < leaves && (inner >= next || weight[leaf]! <= weight[inner]!) ? leaf++ : inner++;
      weight[next] = weight[a]! + weight[b]!;
      parent[a] = next;
      parent[b] = next;
    }
    let deepest = 0;
    depth[2 * leaves - 2] = 0;
    for (let node = 2 * leaves - 3; node >= 0; node--) {
      depth[node] = depth[parent[node]!]! + 1;
      if (node < leaves && depth[node]! > deepest) deepest = depth[node]!;
    }
    if (deepest <= limit) {
      for (let i = 0; i < leaves; i++) lengths[keys[i]! % SYMBOL_SLOTS] = depth[i]!;
      return lengths;
    }
  }
}

/**
 * Canonical codes from lengths (shorter codes first, then by symbol), bit-reversed because the stream is LSB-first;
 * every used symbol gets its bits.
 */
export function canonicalCodes(lengths: Uint8Array): Uint16Array {
  const codes = new Uint16Array(lengths.length);
  const perLength = new Uint16Array(MAX_LENGTH + 1);
  for (let s = 0; s < lengths.length; s++) if (lengths[s] !== 0) perLength[lengths[s]!]!++;
  const next = new Uint16Array(MAX_LENGTH + 1);
  for (let length = 1, code = 0; length <= MAX_LENGTH; length++) {
    code = (code + perLength[length - 1]!) << 1;
    next[length] = code;
  }
  for (let s = 0; s < lengths.length; s++) {
    const length = lengths[s]!;
    if (length === 0) continue;
    let code = next[length]!++;
    let reversed = 0;
    for (let i = 0; i < length; i++, code >>= 1) reversed = (reversed << 1) | (code & 1);
    codes[s] = reversed;
  }
  return codes;
}
