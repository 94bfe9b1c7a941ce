/** A set of line numbers as one bit each: a million lines cost 125 KB, not a million objects. */
export class LineBitmap {
  #bits = new Uint8Array(1024);
  #count = 0;

  get size(): number {
    return this.#count;
  }

  has(line: number): boolean {
    const byte = line >>> 3;
    return byte < this.#bits.length && ((this.#bits[byte] as number) & (1 << (line & 7))) !== 0;
  }

  add(line: number): void {
    const byte = line >>> 3;
    if (byte >= this.#bits.length) {
      let size = this.#bits.length;
      while (size <= byte) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.#bits);
      this.#bits = grown;
    }
    const mask = 1 << (line & 7);
    if (((this.#bits[byte] as number) & mask) === 0) {
      this.#bits[byte] = (this.#bits[byte] as number) | mask;
      this.#count++;
    }
  }
}
