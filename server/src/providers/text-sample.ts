// The generated text a stream meter keeps for counting when the upstream reports no usage. A
// long stream (a client that left a 100 MiB reply, read to its end for billing) must not be kept
// whole: the first `max` characters are, and the count of that sample is scaled to the whole.

/** About 1 MiB of text per stream: enough for a count that scales well, little memory. */
const DEFAULT_MAX_CHARS = 1024 * 1024;

export class CompletionTextSample {
  /** Meters append pieces here; `settle` then keeps the sample within its bound. */
  readonly pieces: string[] = [];
  private settled = 0;
  private keptChars = 0;
  private totalChars = 0;

  constructor(private readonly maxChars = DEFAULT_MAX_CHARS) {}

  /** Keeps the pieces appended since the last call that fit; the others are only counted. */
  settle(): void {
    const p = this.pieces;
    let w = this.settled;
    for (let r = this.settled; r < p.length; r++) {
      const piece = p[r] as string;
      this.totalChars += piece.length;
      if (this.keptChars + piece.length <= this.maxChars) {
        p[w++] = piece;
        this.keptChars += piece.length;
      }
    }
    p.length = w;
    this.settled = w;
  }

  /** Appends pieces as an array would, keeping the sample within its bound as they come. */
  push(...items: string[]): number {
    this.pieces.push(...items);
    this.settle();
    return this.pieces.length;
  }

  text(): string {
    this.settle();
    return this.pieces.join('');
  }

  /** All the text's length over the sample's: a count of `text()` times this estimates the whole. */
  ratio(): number {
    this.settle();
    return this.keptChars === 0 ? 1 : this.totalChars / this.keptChars;
  }
}
