// Writes a bit stream least-significant bit first, as VP8L (and deflate) lay bits out in bytes.
export class BitWriter {
  #bytes: Uint8Array;
  #length = 0;
  #accumulator = 0;
  #used = 0;

  constructor(initialBytes = 1024) {
    this.#bytes = new Uint8Array(initialBytes);
  }

  /** Appends the low `count` bits of `value` (count ≤ 24). */
  write(value: number, count: number): void {
    this.#accumulator |= value << this.#used;
    this.#used += count;
    while (this.#used >= 8) {
      if (this.#length === this.#bytes.length) this.#grow();
      this.#bytes[this.#length++] = this.#accumulator & 0xff;
      this.#accumulator >>>= 8;
      this.#used -= 8;
    }
  }

  /** The stream so far, its last byte padded with zero bits. */
  finish(): Uint8Array {
    if (this.#used > 0) this.write(0, 8 - this.#used);
    return this.#bytes.subarray(0, this.#length);
  }

  #grow(): void {
    const bigger = new Uint8Array(this.#bytes.length * 2);
    bigger.set(this.#bytes);
    this.#bytes = bigger;
  }
}
